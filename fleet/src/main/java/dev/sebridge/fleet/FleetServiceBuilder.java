package dev.sebridge.fleet;

import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.signing.KeyVaultJwsSigner;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Clock;

/**
 * How a {@link FleetService} is made ({@link FleetService#builder}): its configuration, and what
 * tests, the demo and benchmarks put in place of the configured Azure access, the clock and an
 * observer of the topology.
 */
public final class FleetServiceBuilder {
  final Configuration config;
  Clock clock = Clock.systemUTC();
  private KeyVaultJwsSigner.Access keyVault;
  TopologyObserver observer;
  private FleetInventory.Access inventory;
  private FleetInventory.Access acknowledge;

  FleetServiceBuilder(Configuration config) {
    this.config = config;
  }

  public FleetServiceBuilder clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  /** Key Vault through this access (a test endpoint) instead of the configured identity. */
  public FleetServiceBuilder keyVault(KeyVaultJwsSigner.Access access) {
    this.keyVault = access;
    return this;
  }

  /** Resource Graph through this access (a test endpoint) instead of the configured identity. */
  public FleetServiceBuilder inventory(
      com.azure.core.credential.TokenCredential credential, com.azure.core.http.HttpClient http) {
    this.inventory = new FleetInventory.Access(credential, http);
    return this;
  }

  /** The Maintenance API through this access (a test endpoint), not the configured identity. */
  public FleetServiceBuilder acknowledge(
      com.azure.core.credential.TokenCredential credential, com.azure.core.http.HttpClient http) {
    this.acknowledge = new FleetInventory.Access(credential, http);
    return this;
  }

  FleetInventory.Access acknowledgeAccess() {
    return acknowledge != null ? acknowledge : FleetAcknowledgements.configuredAccess(config);
  }

  FleetInventory.Access inventoryAccess() {
    return inventory != null ? inventory : FleetInventory.configuredAccess(config);
  }

  /** Also tells this observer what the topology applies (benchmarks). */
  public FleetServiceBuilder observer(TopologyObserver observer) {
    this.observer = observer;
    return this;
  }

  KeyVaultJwsSigner.Access keyVaultAccess() {
    return keyVault != null
        ? keyVault
        : new KeyVaultJwsSigner.Access(
            dev.sebridge.azure.AzureTokens.from(
                config, FleetKeys.KEY_VAULT_CREDENTIAL, FleetKeys.KEY_VAULT_CLIENT_ID),
            new JdkHttpClientBuilder().build(),
            true);
  }

  public FleetService build() {
    return new FleetService(this);
  }
}
