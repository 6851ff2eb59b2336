package dev.sebridge.spi;

import dev.sebridge.envelope.Envelope;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where envelopes go: Kafka, Event Hubs, a file, stdout. Shaped like OpenTelemetry's {@code
 * SpanExporter}: a sink only does I/O. Batching, retries, timeouts and ordering live in the core,
 * which calls {@link #export} from one thread at a time and waits for each result before the next
 * call; a sink never starts retry threads of its own.
 *
 * <p>Lifecycle: created by its {@link EventSinkProvider}, then any number of {@link #export} and
 * {@link #flush} calls, then {@link #shutdown} (idempotent). Export after shutdown fails.
 */
public interface EventSink extends AutoCloseable {

  /** The sink's name as configured in {@code sinks} (e.g. {@code kafka}). */
  String name();

  /**
   * Hands a batch over. The future completes normally only once every envelope of the batch is
   * durable at the destination (acknowledged by the broker, fsynced to the file). It completes
   * exceptionally with {@link RetriableSinkException} for failures that may heal (the core retries
   * the whole batch later: destinations must tolerate duplicates of identical ids), or with another
   * {@link SinkException} for failures that will not.
   */
  CompletableFuture<Void> export(List<Envelope> batch);

  /** Completes once everything exported so far is durable. */
  CompletableFuture<Void> flush();

  /** Flushes and releases resources. Idempotent; later exports fail. */
  CompletableFuture<Void> shutdown();

  /** {@link #shutdown()} waiting at most 10 seconds. */
  @Override
  default void close() {
    close(Duration.ofSeconds(10));
  }

  /** {@link #shutdown()} with a bounded wait. */
  default void close(Duration timeout) {
    try {
      shutdown().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Nothing more to do: the outbox still holds whatever was not confirmed.
    }
  }
}
