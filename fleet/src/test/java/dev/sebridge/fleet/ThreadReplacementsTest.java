package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A failed stream thread is replaced three times in ten minutes, not a fourth. */
class ThreadReplacementsTest {
  @Test
  void threeReplacementsWithinTheWindowThenTheClientStops() {
    MutableClock clock = new MutableClock(Instant.parse("2026-11-25T10:00:00Z"));
    ThreadReplacements r = new ThreadReplacements(clock);
    assertThat(r.another()).isTrue();
    clock.advance(Duration.ofMinutes(1));
    assertThat(r.another()).isTrue();
    clock.advance(Duration.ofMinutes(1));
    assertThat(r.another()).isTrue();
    clock.advance(Duration.ofMinutes(1));
    assertThat(r.another()).as("a fourth within 10 minutes").isFalse();

    clock.advance(Duration.ofMinutes(11));
    assertThat(r.another()).as("the old failures have left the window").isTrue();
  }
}
