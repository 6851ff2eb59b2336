package dev.sebridge.fleet;

import dev.sebridge.azure.AzureCredentials;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.agentless.MaintenanceApi;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * The keys of approvals without an agent (listed in {@link FleetKeys#all()}): the VMs of an event
 * that no live agent can approve it for are approved through Azure's Maintenance API, which takes
 * an acknowledgement as IMDS takes an approval. docs/fleet.md, "VMs without an agent".
 */
public final class AcknowledgeKeys {
  private AcknowledgeKeys() {}

  public static final ConfigKey<Boolean> ENABLED =
      ConfigKey.builder("fleet.acknowledge.enabled", ConfigType.BOOLEAN)
          .defaultValue(false)
          .doc(
              "Approve events for the VMs without a live agent through Azure's Maintenance API"
                  + " (preview: POST <scheduled event>/acknowledge), audited first like a command;"
                  + " each VM's outcome is in the request's view. Needs fleet.central-events (the"
                  + " scheduled event's ARM id comes from Azure's central delivery).")
          .build();

  public static final ConfigKey<URI> ENDPOINT =
      ConfigKey.builder("fleet.acknowledge.endpoint", ConfigType.HTTP_URL)
          .defaultValue(URI.create("https://management.azure.com"))
          .doc(
              "Azure Resource Manager, where the Maintenance API is: https://management.azure.com,"
                  + " or a sovereign cloud's (https, a host and no path). Tokens are asked for"
                  + " <endpoint>/.default.")
          .validator(
              u ->
                  "https".equalsIgnoreCase(u.getScheme())
                          && u.getHost() != null
                          && (u.getRawPath() == null
                              || u.getRawPath().isEmpty()
                              || u.getRawPath().equals("/"))
                          && u.getRawQuery() == null
                          && u.getRawFragment() == null
                          && u.getRawUserInfo() == null
                      ? Optional.empty()
                      : Optional.of(
                          "must be https://<host>[:port] with no path, query or credentials"))
          .build();

  public static final ConfigKey<String> API_VERSION =
      ConfigKey.builder("fleet.acknowledge.api-version", ConfigType.STRING)
          .defaultValue(MaintenanceApi.DEFAULT_API_VERSION)
          .doc(
              "The Maintenance API's version for both calls (one event, and the batch form that"
                  + " acknowledges several events of one VM, scale set or availability set).")
          .validator(
              s ->
                  s.matches("\\d{4}-\\d{2}-\\d{2}(-preview)?")
                      ? Optional.empty()
                      : Optional.of("must be an API version such as 2025-10-01-preview"))
          .build();

  public static final ConfigKey<String> CREDENTIAL =
      AzureCredentials.credentialKey(
          "fleet.acknowledge",
          "Acknowledging through the Maintenance API",
          "the Scheduled Events Contributor role on the VMs, scale sets and availability sets (or"
              + " their resource groups)");

  public static final ConfigKey<String> CLIENT_ID =
      AzureCredentials.clientIdKey(
          "fleet.acknowledge", "Acknowledging through the Maintenance API");

  /** The keys, in the order the reference lists them. */
  static List<ConfigKey<?>> all() {
    return List.of(ENABLED, ENDPOINT, API_VERSION, CREDENTIAL, CLIENT_ID);
  }

  /** Problems spanning several keys. */
  static void validate(Configuration c, List<ConfigProblem> problems) {
    if (c.get(ENABLED) && !c.get(FleetKeys.CENTRAL_EVENTS)) {
      problems.add(
          new ConfigProblem(
              ENABLED.name(),
              "needs fleet.central-events: the scheduled event's ARM id, which the Maintenance API"
                  + " acknowledges, comes from Azure's central delivery"));
    }
    if (!c.get(ENABLED)) {
      for (ConfigKey<?> k : List.of(ENDPOINT, API_VERSION, CREDENTIAL, CLIENT_ID)) {
        if (c.isSet(k)) {
          problems.add(new ConfigProblem(k.name(), "is used only with fleet.acknowledge.enabled"));
        }
      }
    }
  }
}
