package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Signing time in a sliding window, on an injected clock. */
class SigningBudgetTest {
  final AtomicLong clock = new AtomicLong();
  final SigningBudget budget =
      new SigningBudget(Duration.ofSeconds(10), Duration.ofSeconds(5), clock::get);

  void sign(Duration took) {
    long start = clock.get();
    clock.addAndGet(took.toNanos());
    budget.spend(start);
  }

  @Test
  void whatWasSpentInTheLastWindowCountsAndOnlyThat() {
    assertThat(budget.left()).isEqualTo(Duration.ofSeconds(5));
    sign(Duration.ofSeconds(2));
    sign(Duration.ofSeconds(2));
    assertThat(budget.left()).isEqualTo(Duration.ofSeconds(1));
    sign(Duration.ofSeconds(1));
    assertThat(budget.left()).isEqualTo(Duration.ZERO);
    // Seven seconds on: the first signature (0 to 2 s) is out of the window, 5 to 12 s in it.
    clock.addAndGet(Duration.ofSeconds(7).toNanos());
    assertThat(budget.left()).isEqualTo(Duration.ofSeconds(2));
    // Half of a signature still in the window counts half.
    clock.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(budget.left()).isEqualTo(Duration.ofSeconds(3));
    clock.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(budget.left()).isEqualTo(Duration.ofSeconds(5));
  }

  /** Sequential signatures with gaps: the budget is what summing every span in the window gives. */
  @net.jqwik.api.Property(tries = 200)
  void theBudgetIsWhatSummingTheWindowGives(@net.jqwik.api.ForAll long seed) {
    java.util.Random rnd = new java.util.Random(seed);
    AtomicLong t = new AtomicLong();
    SigningBudget b = new SigningBudget(Duration.ofSeconds(10), Duration.ofSeconds(5), t::get);
    java.util.List<long[]> spans = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      t.addAndGet(rnd.nextInt(3) == 0 ? rnd.nextInt(2_000_000_000) : rnd.nextInt(50_000_000));
      long start = t.get();
      t.addAndGet(rnd.nextInt(100_000_000));
      b.spend(start);
      spans.add(new long[] {start, t.get()});
      t.addAndGet(rnd.nextInt(200_000_000));
      long from = t.get() - Duration.ofSeconds(10).toNanos();
      long used = 0;
      for (long[] s : spans) {
        used += Math.max(0, s[1] - Math.max(s[0], from));
      }
      assertThat(b.left()).isEqualTo(Duration.ofSeconds(5).minusNanos(used));
    }
  }

  /**
   * Two threads signing at once (spans end out of the order they began): what is left is never more
   * than summing the window gives, only ever less.
   */
  @Test
  void overlappingSpansNeverLeaveMoreThanTheSum() {
    AtomicLong t = new AtomicLong();
    SigningBudget b = new SigningBudget(Duration.ofSeconds(10), Duration.ofSeconds(5), t::get);
    t.set(Duration.ofMillis(900).toNanos());
    b.spend(Duration.ofMillis(800).toNanos()); // B: 0.8 s to 0.9 s
    t.set(Duration.ofSeconds(9).toNanos());
    b.spend(0); // A: 0 s to 9 s, ended after B
    t.set(Duration.ofMillis(10_500).toNanos());
    // In the window (0.5 s to 10.5 s): B 0.1 s, A 8.5 s; A, queued behind B, counts whole (9 s).
    Duration exact = Duration.ofSeconds(5).minusMillis(8_600);
    assertThat(b.left()).isLessThanOrEqualTo(exact);
    assertThat(b.left()).isEqualTo(Duration.ofSeconds(5).minusMillis(9_100));
  }
}
