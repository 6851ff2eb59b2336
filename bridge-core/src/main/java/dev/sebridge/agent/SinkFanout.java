package dev.sebridge.agent;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.sink.EventSink;
import dev.sebridge.sink.RetriableSinkException;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each batch to every sink and waits until all of them confirmed, retrying a failing sink
 * with exponential backoff and jitter (resilience4j {@link IntervalFunction}) for as long as it
 * takes. A sink that already confirmed a batch is not asked again for it.
 *
 * <p>Synchronous by design: while a sink is down the agent keeps polling IMDS but does not commit
 * new state, so nothing is lost, and nothing newer overtakes what is pending. One slow sink delays
 * the others; the durable outbox (per-sink cursors) removes that coupling.
 */
public final class SinkFanout implements EnvelopePublisher {
  private static final Logger LOG = LoggerFactory.getLogger(SinkFanout.class);
  private static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(30);

  /** A failing sink is reported (WARN, unhealthy) after this many attempts; earlier ones heal. */
  private static final int WARN_AFTER_ATTEMPTS = 3;

  private final List<EventSink> sinks;
  private final IntervalFunction backoff;
  private final Duration maxBackoff;
  private volatile boolean healthy = true;
  private volatile boolean closed;

  public SinkFanout(List<EventSink> sinks, Duration maxBackoff) {
    this.sinks = List.copyOf(sinks);
    this.maxBackoff = maxBackoff;
    this.backoff =
        IntervalFunction.ofExponentialRandomBackoff(
            Duration.ofMillis(Math.min(200, maxBackoff.toMillis())), 2.0, 0.5, maxBackoff);
  }

  @Override
  public void publish(List<Envelope> envelopes) throws InterruptedException {
    if (envelopes.isEmpty()) {
      return;
    }
    Map<EventSink, Integer> pending = new LinkedHashMap<>();
    sinks.forEach(s -> pending.put(s, 0));
    while (!pending.isEmpty()) {
      if (closed || Thread.currentThread().isInterrupted()) {
        throw new InterruptedException("shutting down with envelopes unconfirmed");
      }
      Map<EventSink, CompletableFuture<Void>> inFlight = new LinkedHashMap<>();
      pending.keySet().forEach(s -> inFlight.put(s, exportSafely(s, envelopes)));
      long sleepMillis = 0;
      for (var e : inFlight.entrySet()) {
        EventSink sink = e.getKey();
        Throwable failure = await(e.getValue());
        if (failure == null) {
          int attempts = pending.remove(sink);
          if (attempts >= WARN_AFTER_ATTEMPTS) {
            LOG.info("sink {} recovered after {} failed attempts", sink.name(), attempts);
          }
          continue;
        }
        int attempt = pending.merge(sink, 1, Integer::sum);
        boolean retriable = failure instanceof RetriableSinkException;
        long wait = retriable ? backoff.apply(attempt) : maxBackoff.toMillis();
        if (attempt == WARN_AFTER_ATTEMPTS || (!retriable && attempt == 1)) {
          LOG.warn(
              "sink {} keeps failing; {} envelopes held back and retried: {}",
              sink.name(),
              envelopes.size(),
              failure.toString());
        } else {
          LOG.debug("sink {} attempt {} failed: {}", sink.name(), attempt, failure.toString());
        }
        sleepMillis = Math.max(sleepMillis, wait);
      }
      healthy = pending.values().stream().allMatch(a -> a < WARN_AFTER_ATTEMPTS);
      if (!pending.isEmpty()) {
        Thread.sleep(sleepMillis);
      }
    }
    healthy = true;
  }

  private static CompletableFuture<Void> exportSafely(EventSink sink, List<Envelope> batch) {
    try {
      return sink.export(batch);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static Throwable await(CompletableFuture<Void> f) throws InterruptedException {
    try {
      f.get(EXPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return new RetriableSinkException("no confirmation within " + EXPORT_TIMEOUT);
    }
  }

  @Override
  public boolean healthy() {
    return healthy;
  }

  @Override
  public void close(Duration timeout) {
    closed = true;
    List<CompletableFuture<Void>> shutdowns = new ArrayList<>();
    for (EventSink s : sinks) {
      try {
        shutdowns.add(s.shutdown());
      } catch (RuntimeException e) {
        LOG.warn("sink {} failed to shut down: {}", s.name(), e.toString());
      }
    }
    try {
      CompletableFuture.allOf(shutdowns.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("sinks did not shut down cleanly within {}: {}", timeout, e.toString());
    }
  }
}
