package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad inventory configuration exits 2 naming the key (the CLI turns the exception into 2). */
class InventoryKeysTest {
  static List<String> base() {
    return new ArrayList<>(
        List.of(
            "fleet.kafka.bootstrap-servers=127.0.0.1:9092",
            "fleet.auth.entra.tenant-id=00000000-0000-0000-0000-000000000001",
            "fleet.auth.entra.audience=api://sebridge-fleet",
            "fleet.signing.key-vault-key=https://vault.example/keys/k/1"));
  }

  static Configuration load(String... sets) {
    List<String> all = base();
    all.addAll(List.of(sets));
    return FleetKeys.load(null, Map.of(), all);
  }

  @Test
  void subscriptionsTurnTheInventoryOnAndTheTagBecomesPartOfTheScope() {
    Configuration c =
        load("fleet.inventory.subscriptions=sub-a,sub-b", "fleet.inventory.tag=fleet=prod");
    assertThat(InventoryKeys.configured(c)).isTrue();
    assertThat(InventoryKeys.scope(c).subscriptions()).containsExactly("sub-a", "sub-b");
    assertThat(InventoryKeys.scope(c).tag())
        .isEqualTo(new dev.sebridge.fleet.inventory.ResourceGraphInventory.Tag("fleet", "prod"));
    assertThat(InventoryKeys.configured(load())).isFalse();
  }

  @Test
  void eachProblemIsNamedByItsKey() {
    assertThatThrownBy(
            () ->
                load(
                    "fleet.inventory.subscriptions=sub-a",
                    "fleet.inventory.management-groups=mg-1",
                    "fleet.inventory.tag=fleet='; drop",
                    "fleet.inventory.refresh=10s"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("fleet.inventory.tag")
        .hasMessageContaining("fleet.inventory.refresh");
    assertThatThrownBy(
            () ->
                load("fleet.inventory.subscriptions=sub-a", "fleet.inventory.management-groups=mg"))
        .hasMessageContaining("fleet.inventory.management-groups")
        .hasMessageContaining("not both");
    assertThatThrownBy(() -> load("fleet.inventory.subscriptions=,"))
        .hasMessageContaining("fleet.inventory.subscriptions")
        .hasMessageContaining("names no subscription");
    assertThatThrownBy(() -> load("fleet.inventory.refresh=10m"))
        .hasMessageContaining("fleet.inventory.refresh")
        .hasMessageContaining("is used only with");
  }
}
