package dev.sebridge.outbox;

import dev.sebridge.envelope.Envelope;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where the agent's pipelines hand envelopes over: the {@link Outbox}, or a stand-in in tests.
 * {@link #publish} returns only once the envelopes are durable; only then does a pipeline commit
 * its own state, so nothing is acknowledged upstream before it is safe.
 */
public interface EnvelopePublisher extends AutoCloseable {

  /**
   * Returns once every envelope is durable (fsynced in the outbox).
   *
   * @throws InterruptedException when the agent is shutting down before that happened (the caller
   *     does not commit, and the next run publishes the same envelopes with the same ids)
   */
  void publish(List<Envelope> envelopes) throws InterruptedException;

  /**
   * Stores envelopes that may be dropped when the outbox is full (heartbeats); returns false when
   * they were.
   */
  default boolean publishSheddable(List<Envelope> envelopes) throws InterruptedException {
    publish(envelopes);
    return true;
  }

  /**
   * What keeps envelopes from their destinations (e.g. a sink that keeps failing); empty if none.
   */
  List<String> problems();

  /** Size and per-sink backlog, for heartbeats. */
  default Status status() {
    return new Status(0, Map.of());
  }

  /** Flushes and shuts the sinks down, waiting at most {@code timeout}. */
  void close(Duration timeout);

  @Override
  default void close() {
    close(Duration.ofSeconds(10));
  }

  /**
   * @param bytes size on disk
   * @param pendingBySink envelopes stored but not yet confirmed, by sink name
   */
  record Status(long bytes, Map<String, Long> pendingBySink) {}
}
