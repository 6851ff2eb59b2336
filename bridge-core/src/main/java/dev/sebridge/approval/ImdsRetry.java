package dev.sebridge.approval;

import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;

/**
 * The retry of an approval's IMDS calls: three attempts with exponential backoff and jitter (200
 * ms, then up to 2 s), on transient failures only: HTTP 400 means the request is malformed, and no
 * retry fixes that.
 */
final class ImdsRetry {
  static final int ATTEMPTS = 3;

  private ImdsRetry() {}

  static Retry of(String name) {
    return Retry.of(
        name,
        RetryConfig.<ImdsResult<?>>custom()
            .maxAttempts(ATTEMPTS)
            .intervalFunction(
                IntervalFunction.ofExponentialRandomBackoff(
                    Duration.ofMillis(200), 2.0, 0.5, Duration.ofSeconds(2)))
            .retryOnResult(ImdsRetry::transientFailure)
            .failAfterMaxAttempts(false)
            .build());
  }

  private static boolean transientFailure(ImdsResult<?> r) {
    return r instanceof ImdsResult.Failed<?> f
        && f.failure().kind() != ImdsFailure.Kind.BAD_REQUEST;
  }
}
