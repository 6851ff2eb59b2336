package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The API's memory of keys it wrote: the first write under a key wins, and it forgets. */
class RecentWritesTest {
  final MutableClock clock = new MutableClock(Instant.parse("2026-11-25T10:00:00Z"));
  final RecentWrites<String> recent = new RecentWrites<>(clock);

  @Test
  void theFirstWriteUnderAKeyWinsUntilItIsForgotten() {
    assertThat(recent.putIfAbsent("k", "first")).isEmpty();
    recent.written("k");
    assertThat(recent.putIfAbsent("k", "second"))
        .get()
        .extracting(w -> w.await())
        .isEqualTo("first");
    assertThat(recent.get("k")).get().extracting(w -> w.await()).isEqualTo("first");

    clock.advance(RecentWrites.RETAIN.minusSeconds(1));
    assertThat(recent.get("k")).isPresent();
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
    assertThat(recent.get("k" + RecentWrites.MAX)).isPresent();
  }

  /**
   * A retry that arrives while the first write waits for the broker answers as that write does: the
   * request once it is confirmed, the same failure when it failed (and then the key is free for a
   * retry to write it again).
   */
  @Test
  void aRetryDuringTheFirstWriteWaitsForItsOutcome() throws Exception {
    assertThat(recent.putIfAbsent("k", "first")).isEmpty();
    RecentWrites.Write<String> pending = recent.putIfAbsent("k", "retry").orElseThrow();
    CompletableFuture<String> retry = CompletableFuture.supplyAsync(pending::await);
    assertThat(retry).isNotDone();
    recent.written("k");
    assertThat(retry.get(10, TimeUnit.SECONDS)).isEqualTo("first");

    assertThat(recent.putIfAbsent("j", "first")).isEmpty();
    RecentWrites.Write<String> waiting = recent.putIfAbsent("j", "retry").orElseThrow();
    CompletableFuture<String> second = CompletableFuture.supplyAsync(waiting::await);
    ApiException broker = new ApiException(503, "cannot write the audit record");
    recent.failed("j", broker);
    assertThatThrownBy(() -> second.join()).hasCause(broker);
    assertThat(recent.putIfAbsent("j", "again")).as("a retry writes it again").isEmpty();
  }
}
