package dev.sebridge.fleet.api;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A resilience4j {@link RateLimiter} per key (a principal, a client address): {@code perMinute}
 * permits a minute each, in fixed one-minute cycles (not a sliding minute: a burst across a cycle's
 * end can take two cycles' permits). At most {@link #MAX_KEYS} keys are remembered, the least
 * recently used forgotten first (a forgotten key starts again with a full minute's permits).
 */
public final class RateLimits {
  static final int MAX_KEYS = 10_000;

  private final RateLimiterConfig config;
  private final Map<String, RateLimiter> limiters =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RateLimiter> eldest) {
          return size() > MAX_KEYS;
        }
      };

  public RateLimits(int perMinute) {
    this.config =
        RateLimiterConfig.custom()
            .limitForPeriod(perMinute)
            .limitRefreshPeriod(Duration.ofMinutes(1))
            .timeoutDuration(Duration.ZERO)
            .build();
  }

  /** Takes one permit of {@code key}'s; false when its minute's permits are spent. */
  public boolean take(String key) {
    return limiter(key).acquirePermission();
  }

  /** True while {@code key} has no permit left this minute (takes none). */
  public boolean spent(String key) {
    return limiter(key).getMetrics().getAvailablePermissions() <= 0;
  }

  /** Keys remembered now (bounded by {@link #MAX_KEYS}). */
  synchronized int size() {
    return limiters.size();
  }

  private synchronized RateLimiter limiter(String key) {
    return limiters.computeIfAbsent(key, k -> RateLimiter.of(k, config));
  }
}
