package dev.sebridge.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where approval commands come from (a Kafka topic, an event hub). Shaped like {@link
 * dev.sebridge.spi.EventSink}: I/O only. The core owns the loop, verification, and the position: it
 * passes the last committed position to {@link #open} and persists a command's {@link
 * ReceivedCommand#position()} only after the command's result envelope is durable.
 *
 * <p>Lifecycle: {@link #open} once, {@link #poll} from one thread, {@link #close} (idempotent).
 */
public interface CommandSource extends AutoCloseable {

  /** The name used in {@code commands.source}. */
  String name();

  /**
   * Starts reading, after {@code position} when present; otherwise from a point that still covers
   * every command that can be valid (commands live at most 10 minutes).
   */
  void open(Optional<String> position);

  /** Waits up to {@code timeout} for commands; returns them in order (maybe none). */
  List<ReceivedCommand> poll(Duration timeout);

  /**
   * The position the next {@link #poll} reads from, past the records of other VMs too, when the
   * source can say: the core records it before reading, so that a record that makes the agent die
   * again and again at the same position can be skipped. Positions are decimal numbers that
   * increase along the stream (Kafka offsets, Event Hubs sequence numbers).
   */
  default OptionalLong readPosition() {
    return OptionalLong.empty();
  }

  /**
   * Whether the last {@link #poll} left the reader at the end of the stream: nothing was there to
   * read (Kafka: the lag its last fetch reported is 0; Event Hubs: the partition is empty or its
   * last enqueued event is before the read position, asked of the hub once per position, again a
   * minute or so after a question that failed). False when it cannot say (a fetch still on its way
   * may hold a record, the broker did not answer). The agent asks after a read that found nothing
   * and moved nothing, once until a read hands records over again.
   */
  default boolean atEnd() {
    return false;
  }

  /**
   * Called before {@link #open} when the agent died reading the last time: from now on each {@link
   * #poll} hands over at most one record (of any VM), decoding nothing past it, so that {@link
   * #readPosition} is recorded before each record and the next death is counted at the record that
   * caused it, not at the first record of a batch that held it (perhaps a genuine command).
   */
  default void readOneAtATime() {}

  /**
   * Skips the record at {@code position} without decoding it: the agent died reading there again
   * and again (a "poison record"). Called right after {@link #open}. Returns where the record was
   * and the position to resume after it, or empty when there is no record there to skip: none yet
   * (the end of the stream), or one before where this source starts reading (read already).
   */
  default Optional<Skipped> skipAt(long position) {
    return Optional.empty();
  }

  /**
   * A record skipped unread.
   *
   * @param record where it was, e.g. {@code commands/3@1042}
   * @param next the position after it, as a {@link ReceivedCommand#position()}: the core persists
   *     it, so that a restart does not read the record again
   */
  record Skipped(String record, String next) {}

  @Override
  void close();
}
