package dev.sebridge.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How often a failed stream thread is replaced: at most {@link #MAX} times within {@link #WINDOW}.
 * A failure that comes back with the same record would otherwise be replaced forever while nothing
 * commits; past the limit the client stops, and readiness says so.
 */
final class ThreadReplacements {
  private static final Logger LOG = LoggerFactory.getLogger(ThreadReplacements.class);

  static final int MAX = 3;
  static final Duration WINDOW = Duration.ofMinutes(10);

  private final Clock clock;
  private final Deque<Instant> recent = new ArrayDeque<>();

  ThreadReplacements(Clock clock) {
    this.clock = clock;
  }

  /** Records a failure; true when the thread may be replaced once more. */
  synchronized boolean another() {
    Instant now = clock.instant();
    while (!recent.isEmpty() && recent.peekFirst().isBefore(now.minus(WINDOW))) {
      recent.pollFirst();
    }
    recent.addLast(now);
    return recent.size() <= MAX;
  }

  /**
   * The streams' handler of an exception nothing else handled: the thread is replaced (and {@code
   * replaced} told), and the instance keeps serving its views, unless threads failed {@link #MAX}
   * times within {@link #WINDOW}: then the client stops, and /readyz says so, for the orchestrator
   * to restart it.
   */
  StreamsUncaughtExceptionHandler handler(Runnable replaced) {
    return e -> {
      replaced.run();
      if (another()) {
        LOG.error("a fleet stream thread failed; replacing it", e);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
      }
      LOG.error(
          "a fleet stream thread failed {} times within {}; stopping the streams", MAX, WINDOW, e);
      return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    };
  }
}
