package dev.sebridge.sink.eventhubs;

import com.azure.messaging.eventhubs.PartitionProperties;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the hub said of the end of the partition, for {@link EventHubsCommandSource#atEnd}: at the
 * end when the partition is empty (every event expired) or its last enqueued event is before the
 * read position. Asked once per read position; a question that failed (or was not answered in
 * {@link EventHubsCommandSource#END_TIMEOUT}) is "cannot tell", logged, and asked again at that
 * position only one to two {@link EventHubsCommandSource#END_RETRY} later, spread so the VMs of a
 * hub that failed them all do not ask again at once.
 */
final class PartitionEnd {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsCommandSource.class);

  /** The last question: its read position, the answer, when to ask again after a failure. */
  private record Asked(long at, boolean answer, Instant askAgainAt) {}

  private final String hub;
  private final Clock clock;
  private Asked asked; // null: nothing asked since the source opened

  PartitionEnd(String hub, Clock clock) {
    this.hub = hub;
    this.clock = clock;
  }

  /** Whether nothing is left to read from {@code next} on, asking the hub only when due. */
  boolean atEnd(long next, Supplier<PartitionProperties> properties) {
    if (asked != null
        && asked.at() == next
        && (asked.askAgainAt() == null || clock.instant().isBefore(asked.askAgainAt()))) {
      return asked.answer();
    }
    try {
      PartitionProperties p = properties.get();
      if (p == null) {
        throw new IllegalStateException("no answer");
      }
      asked = new Asked(next, p.isEmpty() || p.getLastEnqueuedSequenceNumber() < next, null);
    } catch (RuntimeException e) {
      asked = new Asked(next, false, askAgainAt(clock));
      LOG.warn(
          "cannot tell whether hub {} has commands past sequence number {}: {}; a death of the"
              + " agent there counts toward skipping the record there",
          hub,
          next,
          e.toString());
    }
    return asked.answer();
  }

  /**
   * When a question the hub failed is asked again: one to two {@link
   * EventHubsCommandSource#END_RETRY} from now, spread so the VMs of a hub that failed them all do
   * not ask again at once.
   */
  static Instant askAgainAt(Clock clock) {
    long retry = EventHubsCommandSource.END_RETRY.toMillis();
    return clock.instant().plusMillis(retry + ThreadLocalRandom.current().nextLong(retry));
  }

  /** Asks again at the next question (the source was closed). */
  void forget() {
    asked = null;
  }
}
