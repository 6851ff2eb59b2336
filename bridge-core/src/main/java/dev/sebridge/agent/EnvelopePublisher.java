package dev.sebridge.agent;

import dev.sebridge.envelope.Envelope;
import java.time.Duration;
import java.util.List;

/**
 * Where the agent hands envelopes over ({@link dev.sebridge.outbox.Outbox}). {@link #publish}
 * returns only once the envelopes are durable; only then does the agent commit its own state, so
 * nothing is acknowledged upstream before it is safe.
 */
public interface EnvelopePublisher extends AutoCloseable {

  /**
   * Returns once every envelope is durable (fsynced in the outbox).
   *
   * @throws InterruptedException when the agent is shutting down before that happened (the caller
   *     does not commit, and the next run publishes the same envelopes with the same ids)
   */
  void publish(List<Envelope> envelopes) throws InterruptedException;

  /** False while some sink keeps failing. */
  boolean healthy();

  /** Flushes and shuts the sinks down, waiting at most {@code timeout}. */
  void close(Duration timeout);

  @Override
  default void close() {
    close(Duration.ofSeconds(10));
  }
}
