package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import org.junit.jupiter.api.Test;

/** Bad configuration of approvals without an agent exits 2 naming the key. */
class AcknowledgeKeysTest {
  static Configuration load(String... sets) {
    return InventoryKeysTest.load(sets);
  }

  @Test
  void acknowledgingNeedsAzuresCentralDeliveryAndAnHttpsEndpointWithoutAPath() {
    Configuration c =
        load(
            "fleet.central-events=true",
            "fleet.acknowledge.enabled=true",
            "fleet.acknowledge.endpoint=https://management.usgovcloudapi.net");
    assertThat(c.get(AcknowledgeKeys.ENABLED)).isTrue();
    assertThatThrownBy(() -> load("fleet.acknowledge.enabled=true"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("fleet.acknowledge.enabled")
        .hasMessageContaining("fleet.central-events");
    for (String bad :
        new String[] {
          "http://management.azure.com",
          "https://management.azure.com/subscriptions",
          "https://management.azure.com?x=1",
          "https://user:pw@management.azure.com"
        }) {
      assertThatThrownBy(
              () ->
                  load(
                      "fleet.central-events=true",
                      "fleet.acknowledge.enabled=true",
                      "fleet.acknowledge.endpoint=" + bad))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("fleet.acknowledge.endpoint");
    }
    assertThatThrownBy(() -> load("fleet.acknowledge.api-version=latest"))
        .hasMessageContaining("fleet.acknowledge.api-version");
    assertThatThrownBy(() -> load("fleet.acknowledge.credential=default"))
        .hasMessageContaining("fleet.acknowledge.credential")
        .hasMessageContaining("only with fleet.acknowledge.enabled");
  }
}
