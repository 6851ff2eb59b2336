package dev.sebridge.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

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

  @Override
  void close();
}
