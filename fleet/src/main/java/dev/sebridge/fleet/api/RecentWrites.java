package dev.sebridge.fleet.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What this instance wrote under an Idempotency-Key, for the time the views may not show it yet
 * (their lag): a key reused at once, with the same body or another, is answered as if the view
 * already had it (the same request, or 422), and a second request is never written under it. A
 * retry that arrives while the first write is still waiting for the broker waits for its outcome
 * and answers as it does (202, or the same 503). Retention: an entry lives {@link #RETAIN}, at most
 * {@link #MAX} entries (the oldest go first); after that the views answer.
 */
final class RecentWrites<V> {
  static final Duration RETAIN = Duration.ofMinutes(10);
  static final int MAX = 2_000;

  /** Longer than a write waits for the broker ({@code Audited.write}: 30 s). */
  static final Duration AWAIT_WRITE = Duration.ofSeconds(40);

  /**
   * What was written, or is being written, under a key.
   *
   * @param value the request
   * @param written completes when the write is confirmed, exceptionally when it failed
   */
  record Write<V>(V value, CompletableFuture<Void> written) {
    /** Waits for the write; throws what it failed with. */
    V await() {
      try {
        written.get(AWAIT_WRITE.toMillis(), TimeUnit.MILLISECONDS);
        return value;
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
      } catch (TimeoutException e) {
        throw new ApiException(503, "the first request with this Idempotency-Key is still waiting");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ApiException(503, "interrupted");
      }
    }
  }

  private record Entry<V>(Write<V> write, Instant at) {}

  private final Clock clock;
  private final Map<String, Entry<V>> entries = new LinkedHashMap<>();

  RecentWrites(Clock clock) {
    this.clock = clock;
  }

  /** What was written (or is being written) under this id within {@link #RETAIN}. */
  synchronized Optional<Write<V>> get(String id) {
    expire();
    Entry<V> e = entries.get(id);
    return e == null ? Optional.empty() : Optional.of(e.write());
  }

  /**
   * Records that {@code value} is being written under {@code id}, unless something is already
   * there: what is there, or empty when this call recorded it (its caller writes it, then calls
   * {@link #written} or {@link #failed}).
   */
  synchronized Optional<Write<V>> putIfAbsent(String id, V value) {
    expire();
    Entry<V> e = entries.get(id);
    if (e != null) {
      return Optional.of(e.write());
    }
    entries.put(id, new Entry<>(new Write<>(value, new CompletableFuture<>()), clock.instant()));
    if (entries.size() > MAX) {
      Iterator<String> oldest = entries.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    return Optional.empty();
  }

  /** The write under {@code id} is confirmed. */
  synchronized void written(String id) {
    Entry<V> e = entries.get(id);
    if (e != null) {
      e.write().written().complete(null);
    }
  }

  /**
   * The write under {@code id} failed: forgotten, so that a retry writes it again; whoever waits
   * for it gets {@code failure}.
   */
  synchronized void failed(String id, RuntimeException failure) {
    Entry<V> e = entries.remove(id);
    if (e != null) {
      e.write().written().completeExceptionally(failure);
    }
  }

  synchronized int size() {
    expire();
    return entries.size();
  }

  private void expire() {
    Instant horizon = clock.instant().minus(RETAIN);
    Iterator<Entry<V>> it = entries.values().iterator();
    while (it.hasNext()) {
      Entry<V> e = it.next();
      if (!e.at().isBefore(horizon)) {
        break; // in insertion order: the rest are younger
      }
      it.remove();
      // A write still waiting after RETAIN has long timed out; whoever waits is told so.
      e.write().written().completeExceptionally(new ApiException(503, "write not confirmed"));
    }
  }
}
