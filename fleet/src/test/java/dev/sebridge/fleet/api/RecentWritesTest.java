package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The API's memory of keys it wrote: the first write under a key wins, and it forgets. */
class RecentWritesTest {
  final MutableClock clock = new MutableClock(Instant.parse("2026-11-25T10:00:00Z"));
  final RecentWrites<String> recent = new RecentWrites<>(clock);

  @Test
  void theFirstWriteUnderAKeyWinsUntilItIsForgotten() {
    assertThat(recent.putIfAbsent("k", "first")).isEmpty();
    assertThat(recent.putIfAbsent("k", "second")).contains("first");
    assertThat(recent.get("k")).contains("first");

    clock.advance(RecentWrites.RETAIN.minusSeconds(1));
    assertThat(recent.get("k")).contains("first");
    clock.advance(Duration.ofSeconds(2));
    assertThat(recent.get("k")).as("the views answer from here").isEmpty();
    assertThat(recent.size()).isZero();
  }

  @Test
  void itHoldsAtMostMaxEntriesTheOldestGoingFirst() {
    for (int i = 0; i <= RecentWrites.MAX; i++) {
      recent.putIfAbsent("k" + i, "v" + i);
    }
    assertThat(recent.size()).isEqualTo(RecentWrites.MAX);
    assertThat(recent.get("k0")).isEmpty();
    assertThat(recent.get("k" + RecentWrites.MAX)).contains("v" + RecentWrites.MAX);
  }

  @Test
  void aFailedWriteIsForgottenSoThatARetryWritesIt() {
    recent.putIfAbsent("k", "first");
    recent.remove("k");
    assertThat(recent.putIfAbsent("k", "retry")).isEmpty();
  }
}
