package dev.sebridge.outbox;

import java.time.Duration;

/**
 * How the outbox behaves.
 *
 * @param maxBytes above this size, sheddable envelopes (heartbeats) are refused; scheduled-event
 *     transitions are still stored (they are never dropped), with an error logged and counted
 * @param segmentBytes size at which a new segment file is started
 * @param batchSize most envelopes handed to a sink in one export
 * @param exportTimeout longest wait for a sink to confirm a batch
 * @param maxBackoff longest wait between two attempts at a failing sink (exponential with jitter)
 * @param warnAfter how long a sink fails before one WARN says so
 */
public record OutboxSettings(
    long maxBytes,
    long segmentBytes,
    int batchSize,
    Duration exportTimeout,
    Duration maxBackoff,
    Duration warnAfter) {

  /** With the default {@code publish.warn-after} of 30 s. */
  public OutboxSettings(
      long maxBytes,
      long segmentBytes,
      int batchSize,
      Duration exportTimeout,
      Duration maxBackoff) {
    this(maxBytes, segmentBytes, batchSize, exportTimeout, maxBackoff, Duration.ofSeconds(30));
  }

  /** From {@code outbox.max-bytes} and {@code publish.*}. */
  public static OutboxSettings from(dev.sebridge.config.Configuration config) {
    return new OutboxSettings(
        config.get(dev.sebridge.config.CoreKeys.OUTBOX_MAX_BYTES),
        4L * 1024 * 1024,
        config.get(dev.sebridge.config.CoreKeys.PUBLISH_BATCH_SIZE),
        config.get(dev.sebridge.config.CoreKeys.PUBLISH_EXPORT_TIMEOUT),
        config.get(dev.sebridge.config.CoreKeys.PUBLISH_RETRY_MAX_BACKOFF),
        config.get(dev.sebridge.config.CoreKeys.PUBLISH_WARN_AFTER));
  }

  public static OutboxSettings defaults() {
    return new OutboxSettings(
        256L * 1024 * 1024, 4L * 1024 * 1024, 100, Duration.ofSeconds(30), Duration.ofSeconds(10));
  }
}
