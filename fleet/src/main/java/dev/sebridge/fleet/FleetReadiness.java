package dev.sebridge.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;

/**
 * Ready means the streams run and the stores this instance owns are caught up: at most {@link
 * #MAX_LAG} records behind their changelogs and inputs. The lag is asked of the brokers at most
 * every {@link #LAG_CHECK}.
 */
final class FleetReadiness {
  static final long MAX_LAG = 1_000;
  static final Duration LAG_CHECK = Duration.ofSeconds(5);

  private final KafkaStreams streams;
  private final Clock clock;
  private Instant checkedAt = Instant.MIN;
  private long lag;

  FleetReadiness(KafkaStreams streams, Clock clock) {
    this.streams = streams;
    this.clock = clock;
  }

  synchronized List<String> problems() {
    KafkaStreams.State state = streams.state();
    if (state != KafkaStreams.State.RUNNING) {
      return List.of("streams " + state);
    }
    Instant now = clock.instant();
    if (Duration.between(checkedAt, now).compareTo(LAG_CHECK) >= 0) {
      try {
        lag =
            streams.allLocalStorePartitionLags().values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(LagInfo::offsetLag)
                .sum();
        checkedAt = now;
      } catch (RuntimeException e) {
        return List.of("cannot read the stores' lag: " + e.getMessage());
      }
    }
    return lag > MAX_LAG ? List.of("stores " + lag + " records behind") : List.of();
  }
}
