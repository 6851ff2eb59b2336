package dev.sebridge.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How often a failed stream thread is replaced: at most {@link #MAX} times within {@link #WINDOW}.
 * A failure that comes back with the same record would otherwise be replaced forever while nothing
 * commits; past the limit the client stops, and readiness says so.
 */
final class ThreadReplacements {
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
}
