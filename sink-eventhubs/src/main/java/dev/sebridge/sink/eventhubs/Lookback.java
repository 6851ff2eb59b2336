package dev.sebridge.sink.eventhubs;

import com.azure.messaging.eventhubs.PartitionProperties;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where {@link EventHubsCommandSource} reads from when it has no stored position: its lookback, and
 * the read position it tells there, so the agent records where it reads before each read.
 *
 * <ul>
 *   <li>The first event waiting tells its own sequence number; one that comes unannounced is held
 *       back one poll ({@link #holdBack}), so a death handling it is counted at it.
 *   <li>A poll that found nothing asks the hub once per stream whether the partition is empty or
 *       its last event older than the lookback ({@link #nothingFound}): then the position is right
 *       after that event, and the source knows the end there too. A question that fails is asked
 *       again one to two {@link EventHubsCommandSource#END_RETRY} later (a WARN the first time,
 *       INFO after).
 * </ul>
 *
 * Without these a new VM counted no death handling a poison in its lookback, and a quiet VM had no
 * read position at all: its hard resets counted toward skipping the command that came next.
 */
final class Lookback {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsCommandSource.class);

  private final String hub;
  private final Clock clock;
  private Instant from; // where the stream reads from
  private Instant askAt; // when to ask the hub (null: not again on this stream)
  private Long end; // the position the hub's answer gave: right after its last event
  private boolean told; // the first event's own position was told, or it was held back once
  private boolean warned;

  Lookback(String hub, Clock clock) {
    this.hub = hub;
    this.clock = clock;
  }

  /** A stream starts reading from the lookback, {@code length} back: where it starts. */
  Instant start(Duration length) {
    forget();
    from = clock.instant().minus(length);
    askAt = clock.instant();
    return from;
  }

  /** The stream is over (failed, or the source closed): asked again on the next one. */
  void forget() {
    told = false;
    end = null;
    askAt = null;
  }

  /** A poll found nothing: asks the hub whether anything is in the lookback, when due. */
  void nothingFound(Supplier<PartitionProperties> properties) {
    if (askAt == null || clock.instant().isBefore(askAt)) {
      return;
    }
    try {
      PartitionProperties p = properties.get();
      if (p == null) {
        throw new IllegalStateException("no answer");
      }
      askAt = null;
      if (p.isEmpty() || p.getLastEnqueuedTime().isBefore(from)) {
        end = p.getLastEnqueuedSequenceNumber() + 1;
      }
    } catch (RuntimeException e) {
      askAt = PartitionEnd.askAgainAt(clock);
      String said =
          "cannot tell whether hub {} has commands enqueued since {}: {}; asked again at {}";
      if (warned) {
        LOG.info(said, hub, from, e.toString(), askAt);
      } else {
        warned = true;
        LOG.warn(said, hub, from, e.toString(), askAt);
      }
    }
  }

  /**
   * The read position before any event was read: the first waiting event's ({@code waiting}, told),
   * or right after the hub's last event when the lookback holds none, or none.
   */
  OptionalLong position(OptionalLong waiting) {
    if (waiting.isPresent()) {
      told = true;
      return waiting;
    }
    return end == null ? OptionalLong.empty() : OptionalLong.of(end);
  }

  /**
   * Whether the first event, {@code sequenceNumber}, must wait for the next poll: nobody was told
   * its position (nor the same one from the hub's answer). Once: then it is told.
   */
  boolean holdBack(long sequenceNumber) {
    if (told || Long.valueOf(sequenceNumber).equals(end)) {
      return false;
    }
    told = true;
    return true;
  }
}
