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
}
