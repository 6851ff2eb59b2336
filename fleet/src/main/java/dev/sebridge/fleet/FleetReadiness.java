package dev.sebridge.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;

/**
 * Ready means the streams run, the stores this instance owns are caught up (at most {@link
 * #MAX_LAG} records behind their changelogs and inputs), and so are the global views every query
 * and every rollout step reads (the global consumer's {@code records-lag}, per partition of the
 * view topics, at most {@link #MAX_LAG} in all). The local lag is asked of the brokers at most
 * every {@link #LAG_CHECK}; the global one is what the global consumer measured at its last fetch.
 */
final class FleetReadiness {
  static final long MAX_LAG = 1_000;
  static final Duration LAG_CHECK = Duration.ofSeconds(5);

  private final Supplier<KafkaStreams.State> state;
  private final LongSupplier localLag;
  private final Supplier<Map<MetricName, ? extends Metric>> metrics;
  private final Clock clock;
  private Instant checkedAt = Instant.MIN;
  private long lag;

  FleetReadiness(KafkaStreams streams, Clock clock) {
    this(
        streams::state,
        () ->
            streams.allLocalStorePartitionLags().values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(LagInfo::offsetLag)
                .sum(),
        streams::metrics,
        clock);
  }

  FleetReadiness(
      Supplier<KafkaStreams.State> state,
      LongSupplier localLag,
      Supplier<Map<MetricName, ? extends Metric>> metrics,
      Clock clock) {
    this.state = state;
    this.localLag = localLag;
    this.metrics = metrics;
    this.clock = clock;
  }

  synchronized List<String> problems() {
    KafkaStreams.State s = state.get();
    if (s != KafkaStreams.State.RUNNING) {
      return List.of("streams " + s);
    }
    Instant now = clock.instant();
    if (Duration.between(checkedAt, now).compareTo(LAG_CHECK) >= 0) {
      try {
        lag = localLag.getAsLong();
        checkedAt = now;
      } catch (RuntimeException e) {
        return List.of("cannot read the stores' lag: " + e.getMessage());
      }
    }
    List<String> problems = new ArrayList<>();
    if (lag > MAX_LAG) {
      problems.add("stores " + lag + " records behind");
    }
    long global = globalLag(metrics.get());
    if (global > MAX_LAG) {
      problems.add("global views " + global + " records behind");
    }
    return problems;
  }

  /**
   * The records the global consumer has yet to read, summed over its partitions: the {@code
   * records-lag} its fetcher reports per partition (NaN before the first fetch: not counted; the
   * streams are not RUNNING before the global views are restored).
   */
  static long globalLag(Map<MetricName, ? extends Metric> metrics) {
    return GlobalConsumerMetrics.lag(metrics, topic -> true).orElse(0);
  }
}
