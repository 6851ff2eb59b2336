package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.ViewsGate;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * {@link ViewsGate} from what the global consumer of this instance's Kafka Streams client reports
 * ({@link GlobalConsumerMetrics}). The views a release is decided on are behind while it has more
 * than {@link #MAX_RECORDS_BEHIND} records of their topics yet to read ({@code records-lag} at its
 * last fetch, summed over the VMs', events', requests' and inventory's view topics: not the views
 * the rollouts task writes itself, which a large step fills), or has not polled for more than
 * {@link #MAX_POLL_GAP_SECONDS} ({@code last-poll-seconds-ago}: a global thread held up applying
 * what it fetched, which the lag of its last fetch does not show). Once behind, they are fresh
 * again only at half of each bound, so that a lag about the bound does not open and close the gate
 * every tick. When the client does not report both (a Kafka that renamed one, a consumer that has
 * not fetched or polled yet) the views count as behind: the gate fails closed, and says why.
 *
 * <p>Bounds: 10,000 records is about six seconds of a 100,000-VM fleet's heartbeats; the global
 * thread of the 100,000-VM benchmark was held up to 9 s. Not seen: a fetch that hangs (up to {@code
 * request.timeout.ms}) while the consumer goes on polling keeps the lag of the fetch before.
 *
 * <p>Asked by the rollouts task's thread only.
 */
final class GlobalViewsGate implements ViewsGate {
  static final long MAX_RECORDS_BEHIND = 10_000;
  static final double MAX_POLL_GAP_SECONDS = 5;

  private final Supplier<Map<MetricName, ? extends Metric>> metrics;
  private final Set<String> topics;
  private volatile boolean behind;

  /**
   * @param topics the view topics releases are decided on
   */
  GlobalViewsGate(Supplier<Map<MetricName, ? extends Metric>> metrics, Set<String> topics) {
    this.metrics = metrics;
    // as the metrics' topic tags spell them (fleet.topic.prefix may have dots)
    this.topics =
        topics.stream()
            .map(GlobalConsumerMetrics::tagged)
            .collect(java.util.stream.Collectors.toSet());
  }

  @Override
  public Optional<String> behind() {
    Map<MetricName, ? extends Metric> m = metrics.get();
    OptionalLong lag = GlobalConsumerMetrics.lag(m, topics::contains);
    OptionalDouble gap = GlobalConsumerMetrics.lastPollSecondsAgo(m);
    Optional<String> why;
    if (lag.isEmpty() || gap.isEmpty()) {
      why =
          Optional.of(
              "cannot tell how far: the global consumer reports no "
                  + (lag.isEmpty() ? "records-lag of " + topics : "last-poll-seconds-ago"));
    } else if (lag.getAsLong() > (behind ? MAX_RECORDS_BEHIND / 2 : MAX_RECORDS_BEHIND)) {
      why = Optional.of(lag.getAsLong() + " records behind their topics");
    } else if (gap.getAsDouble() > (behind ? MAX_POLL_GAP_SECONDS / 2 : MAX_POLL_GAP_SECONDS)) {
      why = Optional.of(String.format("their topics not read for %.0f s", gap.getAsDouble()));
    } else {
      why = Optional.empty();
    }
    behind = why.isPresent();
    return why;
  }
}
