package dev.sebridge.fleet.streams;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * The signing time the stream thread may spend in any window: several request partitions share one
 * exactly-once transaction, so a vault that is slow but answers, request after request, must not
 * add up past the transaction's timeout. With at most 5 s in any 10 s, a transaction (which lives
 * at most 10 s) never spends more than 5 s signing, however many requests it holds.
 */
final class SigningBudget {
  private final Duration window;
  private final Duration most;
  private final LongSupplier nanos;
  private final Deque<long[]> spent = new ArrayDeque<>(); // {start, end} in nanos, oldest first
  private long total; // of the spans in spent, whole

  /**
   * @param most signing time at most in any {@code window}
   * @param nanos the clock ({@link System#nanoTime} but in tests)
   */
  SigningBudget(Duration window, Duration most, LongSupplier nanos) {
    this.window = window;
    this.most = most;
    this.nanos = nanos;
  }

  /**
   * What may still be spent now (zero or less: nothing). In constant time but for what leaves the
   * window (a wave signs thousands of requests within one window).
   */
  synchronized Duration left() {
    long now = nanos.getAsLong();
    long from = now - window.toNanos();
    while (!spent.isEmpty() && spent.peekFirst()[1] <= from) {
      long[] gone = spent.removeFirst();
      total -= gone[1] - gone[0];
    }
    // The oldest spans may have begun before the window: only their part within it counts. Spans
    // are in the order they ended; one that began before the window behind one that did not (two
    // threads signing at once) counts whole, which only leaves less to spend.
    long used = total;
    for (long[] s : spent) {
      if (s[0] >= from) {
        break;
      }
      used -= from - s[0];
    }
    return most.minusNanos(used);
  }

  /** Signing took from {@code start} to now. */
  synchronized void spend(long start) {
    long end = nanos.getAsLong();
    spent.addLast(new long[] {start, end});
    total += end - start;
  }

  long now() {
    return nanos.getAsLong();
  }
}
