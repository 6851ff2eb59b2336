package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rate limits' retention rule: at most MAX_KEYS keys, the least recently used dropped. */
class RateLimitsTest {
  @Test
  void keepsAtMostItsKeysForgettingTheLeastRecentlyUsedFirst() {
    RateLimits limits = new RateLimits(1);
    assertThat(limits.take("first")).isTrue();
    assertThat(limits.take("first")).as("its minute's permit is spent").isFalse();
    assertThat(limits.take("used")).isTrue();
    for (int i = 0; i < RateLimits.MAX_KEYS - 2; i++) {
      limits.take("key-" + i);
    }
    assertThat(limits.size()).isEqualTo(RateLimits.MAX_KEYS);
    assertThat(limits.spent("used")).isTrue(); // used again: now the most recent
    limits.take("one-more");
    assertThat(limits.size()).isEqualTo(RateLimits.MAX_KEYS);
    // "first" was the least recently used: forgotten, it starts again with a full minute
    assertThat(limits.take("first")).isTrue();
    assertThat(limits.size()).isEqualTo(RateLimits.MAX_KEYS);
    assertThat(limits.spent("used")).as("remembered").isTrue();
  }
}
