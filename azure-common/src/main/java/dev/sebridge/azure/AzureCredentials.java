package dev.sebridge.azure;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigType;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * How an Azure sink authenticates, the way Azure users expect on a VM: the VM's managed identity
 * first (system-assigned, or user-assigned with a client id), AKS workload identity on node pools
 * that use it, and {@code DefaultAzureCredential} (environment, CLI, ...) only when asked for.
 *
 * <p>This enum and its configuration keys name no Azure SDK type: every provider's keys are read at
 * start, and the Azure jars (signed, so opening one verifies its whole manifest) load only for an
 * agent that uses an Azure sink or source, through {@link AzureTokens}.
 */
public enum AzureCredentials {
  MANAGED_IDENTITY("managed-identity"),
  WORKLOAD_IDENTITY("workload-identity"),
  DEFAULT("default");

  private final String configName;

  AzureCredentials(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  public static Optional<AzureCredentials> parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(v -> v.configName.equals(t)).findFirst();
  }

  /** The names accepted in configuration, for error messages and docs. */
  public static String names() {
    return String.join(", ", Arrays.stream(values()).map(AzureCredentials::configName).toList());
  }

  /**
   * The {@code <prefix>.credential} key of a component that authenticates with Microsoft Entra ID.
   *
   * @param role what the identity needs, for the documentation (e.g. "Azure Event Hubs Data Sender
   *     on the hub")
   */
  public static ConfigKey<String> credentialKey(String prefix, String component, String role) {
    return ConfigKey.builder(prefix + ".credential", ConfigType.STRING)
        .defaultValue(MANAGED_IDENTITY.configName())
        .doc(component + ": how to get a token: " + names() + ". The identity needs " + role + ".")
        .validator(
            s -> parse(s).isPresent() ? Optional.empty() : Optional.of("must be one of " + names()))
        .build();
  }

  /** The {@code <prefix>.client-id} key: a user-assigned identity, unset for system-assigned. */
  public static ConfigKey<String> clientIdKey(String prefix, String component) {
    return ConfigKey.builder(prefix + ".client-id", ConfigType.STRING)
        .doc(
            component
                + ": client id of a user-assigned managed identity (or of the workload identity's"
                + " application). Unset: the system-assigned identity.")
        .build();
  }
}
