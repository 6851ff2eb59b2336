package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.ViewsGate;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * {@link ViewsGate} from what the global consumer of this instance's Kafka Streams client reports:
 * the views are behind while it has more than {@link #MAX_RECORDS_BEHIND} records of the view
 * topics yet to read ({@code records-lag} at its last fetch, summed: {@link
 * FleetReadiness#globalLag}), or while it has not polled them for more than {@link
 * #MAX_POLL_GAP_SECONDS} ({@code last-poll-seconds-ago}: a global thread held up applying what it
 * fetched, which the lag of its last fetch does not show). Bounds: 10,000 records is about six
 * seconds of a 100,000-VM fleet's heartbeats; the global thread of the 100,000-VM benchmark was
 * held up to 9 s. Before the first fetch and poll the metrics say nothing (not counted; the streams
 * are not running before the global views are restored).
 */
final class GlobalViewsGate implements ViewsGate {
  static final long MAX_RECORDS_BEHIND = 10_000;
  static final double MAX_POLL_GAP_SECONDS = 5;

  private final Supplier<Map<MetricName, ? extends Metric>> metrics;

  GlobalViewsGate(Supplier<Map<MetricName, ? extends Metric>> metrics) {
    this.metrics = metrics;
  }

  @Override
  public Optional<String> behind() {
    Map<MetricName, ? extends Metric> m = metrics.get();
    long lag = FleetReadiness.globalLag(m);
    if (lag > MAX_RECORDS_BEHIND) {
      return Optional.of(lag + " records behind their topics");
    }
    double gap = lastPollSecondsAgo(m);
    if (gap > MAX_POLL_GAP_SECONDS) {
      return Optional.of(String.format("their topics not read for %.0f s", gap));
    }
    return Optional.empty();
  }

  /**
   * Seconds since the global consumer last polled ({@code last-poll-seconds-ago}, -1 before its
   * first poll: not counted), or -1 when no such metric is reported.
   */
  static double lastPollSecondsAgo(Map<MetricName, ? extends Metric> metrics) {
    double most = -1;
    for (var e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.name().equals("last-poll-seconds-ago")
          && n.group().equals("consumer-metrics")
          && n.tags().getOrDefault("client-id", "").endsWith("-global-consumer")
          && e.getValue().metricValue() instanceof Number v
          && !Double.isNaN(v.doubleValue())) {
        most = Math.max(most, v.doubleValue());
      }
    }
    return most;
  }
}
