package dev.sebridge.fleet;

import dev.sebridge.azure.AzureCredentials;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.inventory.ResourceGraphInventory;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The keys of Azure's inventory (listed in {@link FleetKeys#all()}): where Resource Graph looks,
 * how often, and as whom. With an inventory, group sizes and membership come from it, not from what
 * agents say of themselves.
 */
public final class InventoryKeys {
  private InventoryKeys() {}

  /** What a tag's name and value may hold: nothing that could end a KQL string. */
  private static final Pattern TAG = Pattern.compile("[A-Za-z0-9 _.:/+@-]+=[A-Za-z0-9 _.:/+@-]*");

  public static final ConfigKey<List<String>> SUBSCRIPTIONS =
      ConfigKey.builder("fleet.inventory.subscriptions", ConfigType.LIST)
          .doc(
              "Subscription ids whose VMs and scale-set instances make the fleet's inventory"
                  + " (Azure Resource Graph). Set: group sizes and membership come from Azure, an"
                  + " agent reporting a vmId the inventory does not list is an unknown VM, counted"
                  + " in no group. Or fleet.inventory.management-groups.")
          .build();

  public static final ConfigKey<List<String>> MANAGEMENT_GROUPS =
      ConfigKey.builder("fleet.inventory.management-groups", ConfigType.LIST)
          .doc(
              "Management group ids whose VMs make the inventory, instead of"
                  + " fleet.inventory.subscriptions.")
          .build();

  public static final ConfigKey<String> TAG_FILTER =
      ConfigKey.builder("fleet.inventory.tag", ConfigType.STRING)
          .doc(
              "Only VMs with this tag, as name=value (the value compared case-insensitively),"
                  + " make the inventory.")
          .validator(
              s ->
                  TAG.matcher(s).matches()
                      ? Optional.empty()
                      : Optional.of(
                          "must be name=value of letters, digits, spaces and _.:/+@- (no quotes)"))
          .build();

  public static final ConfigKey<Duration> REFRESH =
      ConfigKey.builder("fleet.inventory.refresh", ConfigType.DURATION_TYPE)
          .defaultValue(Duration.ofMinutes(5))
          .doc(
              "How often the inventory is read again whole. A VM created since is unknown until"
                  + " then (and its agent's next envelope): counted nowhere, which holds releases.")
          .validator(ConfigKey.atLeast(Duration.ofMinutes(1), "1m"))
          .build();

  public static final ConfigKey<URI> ENDPOINT =
      ConfigKey.builder("fleet.inventory.endpoint", ConfigType.HTTP_URL)
          .defaultValue(URI.create("https://management.azure.com"))
          .doc(
              "Azure Resource Manager: https://management.azure.com, or a sovereign cloud's"
                  + " (https://management.usgovcloudapi.net). Tokens are asked for"
                  + " <endpoint>/.default.")
          .build();

  public static final ConfigKey<String> CREDENTIAL =
      AzureCredentials.credentialKey(
          "fleet.inventory",
          "The inventory",
          "Reader on the subscriptions or management groups (Resource Graph lists only what the"
              + " identity may read)");

  public static final ConfigKey<String> CLIENT_ID =
      AzureCredentials.clientIdKey("fleet.inventory", "The inventory");

  /** The keys, in the order the reference lists them. */
  static List<ConfigKey<?>> all() {
    return List.of(
        SUBSCRIPTIONS, MANAGEMENT_GROUPS, TAG_FILTER, REFRESH, ENDPOINT, CREDENTIAL, CLIENT_ID);
  }

  /** Whether an inventory is configured. */
  public static boolean configured(Configuration c) {
    return c.isSet(SUBSCRIPTIONS) || c.isSet(MANAGEMENT_GROUPS);
  }

  /** Where Resource Graph looks. */
  static ResourceGraphInventory.Scope scope(Configuration c) {
    ResourceGraphInventory.Tag tag =
        c.find(TAG_FILTER)
            .map(
                t -> {
                  int eq = t.indexOf('=');
                  return new ResourceGraphInventory.Tag(t.substring(0, eq), t.substring(eq + 1));
                })
            .orElse(null);
    return new ResourceGraphInventory.Scope(
        c.find(SUBSCRIPTIONS).orElse(List.of()), c.find(MANAGEMENT_GROUPS).orElse(List.of()), tag);
  }

  /** Problems spanning several keys. */
  static void validate(Configuration c, List<ConfigProblem> problems) {
    if (c.isSet(SUBSCRIPTIONS) && c.isSet(MANAGEMENT_GROUPS)) {
      problems.add(
          new ConfigProblem(
              MANAGEMENT_GROUPS.name(),
              "set either fleet.inventory.subscriptions or fleet.inventory.management-groups, not"
                  + " both"));
    }
    for (ConfigKey<List<String>> k : List.of(SUBSCRIPTIONS, MANAGEMENT_GROUPS)) {
      // Empty, Resource Graph would read every subscription the identity may read.
      if (c.isSet(k) && c.get(k).stream().allMatch(String::isBlank)) {
        problems.add(new ConfigProblem(k.name(), "names no subscription or management group"));
      }
    }
    if (!configured(c)) {
      for (ConfigKey<?> k : List.of(TAG_FILTER, REFRESH, ENDPOINT, CREDENTIAL, CLIENT_ID)) {
        if (c.isSet(k)) {
          problems.add(
              new ConfigProblem(
                  k.name(),
                  "is used only with fleet.inventory.subscriptions or"
                      + " fleet.inventory.management-groups"));
        }
      }
    }
  }
}
