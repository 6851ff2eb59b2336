package dev.sebridge.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * A failure that may heal by itself (broker down, timeout, throttling): the core retries. A sink
 * that was told when to come back (HTTP 429 or 503 with {@code Retry-After}) passes it on; the core
 * then waits at least that long.
 */
public class RetriableSinkException extends SinkException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  public RetriableSinkException(String message, Throwable cause) {
    this(message, cause, null);
  }

  public RetriableSinkException(String message) {
    this(message, null, null);
  }

  public RetriableSinkException(String message, Throwable cause, Duration retryAfter) {
    super(message, cause);
    this.retryAfter = retryAfter;
  }

  /** How long the destination asked us to wait before the next attempt, if it said. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
