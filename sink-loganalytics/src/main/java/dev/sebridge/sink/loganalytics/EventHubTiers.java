package dev.sebridge.sink.loganalytics;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * What each Event Hubs tier the Azure deployment offers allows per event hub, and the template
 * variables that check the deployment's parameters against the chosen tier before anything is
 * deployed.
 *
 * <p>A template parameter's own {@code minValue}/{@code maxValue} cannot depend on another
 * parameter, so those allow the largest tier's values, and the variables {@link #PARTITIONS},
 * {@link #RETENTION_HOURS} and {@link #CONSUMER_GROUPS} are the checked values the resources use:
 * the parameter when the tier allows it, otherwise {@code fail()} with a message naming the
 * parameter, the tier and its limit (ARM evaluates these when it validates the deployment, so a
 * Standard namespace asked for 33 partitions is refused before any resource exists).
 *
 * <p>The limits are Microsoft's published Event Hubs quotas ("Azure Event Hubs quotas and limits",
 * https://learn.microsoft.com/azure/event-hubs/event-hubs-quotas): partitions per event hub,
 * maximum retention period and consumer groups per event hub. Retention is set through {@code
 * retentionDescription} (hours), as {@code messageRetentionInDays} of the 2024-01-01 API is
 * documented for 1-7 days only.
 */
final class EventHubTiers {
  record Tier(String name, int partitionCount, int retentionInDays, int consumerGroups) {}

  static final List<Tier> TIERS =
      List.of(new Tier("Standard", 32, 7, 20), new Tier("Premium", 100, 90, 100));

  static final String LIMITS = "tierLimits";
  static final String PARTITIONS = "hubPartitionCount";
  static final String RETENTION_HOURS = "hubRetentionHours";
  static final String CONSUMER_GROUPS = "commandGroupCount";

  private EventHubTiers() {}

  static int maxPartitions() {
    return TIERS.stream().mapToInt(Tier::partitionCount).max().orElseThrow();
  }

  static int maxRetentionInDays() {
    return TIERS.stream().mapToInt(Tier::retentionInDays).max().orElseThrow();
  }

  static int maxConsumerGroups() {
    return TIERS.stream().mapToInt(Tier::consumerGroups).max().orElseThrow();
  }

  /** The limits table and the three checked values, as ARM template variables. */
  static void declare(ObjectNode variables) {
    ObjectNode limits = variables.putObject(LIMITS);
    for (Tier t : TIERS) {
      limits
          .putObject(t.name())
          .put("partitionCount", t.partitionCount())
          .put("retentionInDays", t.retentionInDays())
          .put("consumerGroups", t.consumerGroups());
    }
    variables.put(PARTITIONS, checked("partitionCount", "partitionCount", "{0}"));
    variables.put(RETENTION_HOURS, checked("retentionInDays", "retentionInDays", "mul({0}, 24)"));
    variables.put(CONSUMER_GROUPS, checked("commandsConsumerGroups", "consumerGroups", "{0}"));
  }

  /**
   * {@code [if(lessOrEquals(param, limit), value, fail(message))]}; {@code value} is a pattern in
   * which {0} stands for the parameter.
   */
  private static String checked(String param, String limitName, String value) {
    String p = "parameters('" + param + "')";
    String limit = "variables('" + LIMITS + "')[parameters('namespaceSku')]." + limitName;
    return "[if(lessOrEquals("
        + p
        + ", "
        + limit
        + "), "
        + value.replace("{0}", p)
        + ", fail(format('"
        + param
        + " {0} is more than the {1} tier allows per event hub ({2}).', "
        + p
        + ", parameters('namespaceSku'), "
        + limit
        + ")))]";
  }
}
