package dev.sebridge.fleet;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Predicate;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * What the global consumer of this instance's Kafka Streams client (the one that keeps the global
 * views; its client id ends in {@code -global-consumer}) reports of itself, read from the client's
 * metrics: for readiness ({@link FleetReadiness}) and the views gate ({@link GlobalViewsGate}).
 */
final class GlobalConsumerMetrics {
  private GlobalConsumerMetrics() {}

  /**
   * The records it has yet to read of these topics, summed over their partitions: the {@code
   * records-lag} its fetcher reports per partition at its last fetch (NaN before the first: not
   * counted); empty when it reports none for any of them. {@code topics} is asked of each topic as
   * the metric's tag names it: Kafka writes a topic's dots as underscores there ({@link #tagged}).
   */
  static OptionalLong lag(Map<MetricName, ? extends Metric> metrics, Predicate<String> topics) {
    long sum = 0;
    boolean any = false;
    for (var e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.name().equals("records-lag")
          && n.group().equals("consumer-fetch-manager-metrics")
          && n.tags().containsKey("partition")
          && global(n)
          && topics.test(n.tags().getOrDefault("topic", ""))
          && e.getValue().metricValue() instanceof Double d
          && !d.isNaN()) {
        sum += d.longValue();
        any = true;
      }
    }
    return any ? OptionalLong.of(sum) : OptionalLong.empty();
  }

  /**
   * Seconds since it last polled ({@code last-poll-seconds-ago}, whole seconds), or empty when it
   * reports none or has not polled yet (-1).
   */
  static OptionalDouble lastPollSecondsAgo(Map<MetricName, ? extends Metric> metrics) {
    double most = -1;
    for (var e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.name().equals("last-poll-seconds-ago")
          && n.group().equals("consumer-metrics")
          && global(n)
          && e.getValue().metricValue() instanceof Number v
          && !Double.isNaN(v.doubleValue())) {
        most = Math.max(most, v.doubleValue());
      }
    }
    return most < 0 ? OptionalDouble.empty() : OptionalDouble.of(most);
  }

  /** A topic's name as a fetch metric's {@code topic} tag spells it: dots as underscores. */
  static String tagged(String topic) {
    return topic.replace('.', '_');
  }

  private static boolean global(MetricName n) {
    return n.tags().getOrDefault("client-id", "").endsWith("-global-consumer");
  }
}
