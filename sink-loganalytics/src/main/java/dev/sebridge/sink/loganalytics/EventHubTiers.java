package dev.sebridge.sink.loganalytics;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.ToIntFunction;

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
 * maximum retention period and consumer groups per event hub. {@code $Default} counts toward the
 * consumer groups (Basic's quota is 1: {@code $Default} alone), so the commands hub takes {@code
 * commandsConsumerGroups} groups besides it only while their number is below the quota. Retention
 * is set through {@code retentionDescription} (hours), as {@code messageRetentionInDays} of the
 * 2024-01-01 API is documented for 1-7 days only.
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

  /** The largest tier's value of a limit. */
  static int max(ToIntFunction<Tier> limit) {
    return TIERS.stream().mapToInt(limit).max().orElseThrow();
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
    variables.put(
        PARTITIONS,
        checked("partitionCount", "lessOrEquals", "partitionCount", "{0}", " is more than"));
    variables.put(
        RETENTION_HOURS,
        checked(
            "retentionInDays", "lessOrEquals", "retentionInDays", "mul({0}, 24)", " is more than"));
    variables.put(
        CONSUMER_GROUPS,
        checked(
            "commandsConsumerGroups",
            "less",
            "consumerGroups",
            "{0}",
            " and $Default are more than"));
  }

  /**
   * {@code [if(compare(param, limit), value, fail(message))]}; {@code value} is a pattern in which
   * {0} stands for the parameter.
   */
  private static String checked(
      String param, String compare, String limitName, String value, String tooMany) {
    String p = "parameters('" + param + "')";
    String limit = "variables('" + LIMITS + "')[parameters('namespaceSku')]." + limitName;
    return "[if("
        + compare
        + "("
        + p
        + ", "
        + limit
        + "), "
        + value.replace("{0}", p)
        + ", fail(format('"
        + param
        + " {0}"
        + tooMany
        + " the {1} tier allows per event hub ({2}).', "
        + p
        + ", parameters('namespaceSku'), "
        + limit
        + ")))]";
  }
}
