package dev.sebridge.fleet.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What this instance wrote under an Idempotency-Key, for the time the views may not show it yet
 * (their lag): a key reused at once, with the same body or another, is answered as if the view
 * already had it (the same request, or 422), and a second request written under it is never
 * written. Retention: an entry lives {@link #RETAIN}, at most {@link #MAX} entries (the oldest go
 * first); after that the views answer.
 */
final class RecentWrites<V> {
  static final Duration RETAIN = Duration.ofMinutes(10);
  static final int MAX = 10_000;

  private record Entry<V>(V value, Instant at) {}

  private final Clock clock;
  private final Map<String, Entry<V>> entries = new LinkedHashMap<>();

  RecentWrites(Clock clock) {
    this.clock = clock;
  }

  /** What was written under this id, if it was within {@link #RETAIN}. */
  synchronized Optional<V> get(String id) {
    expire();
    Entry<V> e = entries.get(id);
    return e == null ? Optional.empty() : Optional.of(e.value());
  }

  /**
   * Records {@code value} under {@code id} unless something is already there: what is there, or
   * empty when this call recorded it (and its caller writes it).
   */
  synchronized Optional<V> putIfAbsent(String id, V value) {
    expire();
    Entry<V> e = entries.get(id);
    if (e != null) {
      return Optional.of(e.value());
    }
    entries.put(id, new Entry<>(value, clock.instant()));
    if (entries.size() > MAX) {
      Iterator<String> oldest = entries.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    return Optional.empty();
  }

  /** Forgets {@code id} (a write that failed: a retry writes it again). */
  synchronized void remove(String id) {
    if (id != null) {
      entries.remove(id);
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
      if (it.next().at().isBefore(horizon)) {
        it.remove();
      } else {
        break; // in insertion order: the rest are younger
      }
    }
  }
}
