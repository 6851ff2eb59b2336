package dev.sebridge.fleet.api;

import java.util.ArrayList;
import java.util.NavigableSet;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A page's read of a view, in key order after its cursor: up to {@code n} records a filter keeps,
 * reading at most {@link #AT_MOST} records. A filter that keeps few ({@code text=zzz} over a day of
 * closed events, 160,000 at 100,000 VMs) read and parsed every record for each page; now a page
 * stops where its budget ends, holds what it found (perhaps nothing), and its {@code next} goes on
 * from there ({@link Scanned#stoppedAt}).
 */
final class KeyScans {
  /** The most records one page reads. */
  static final int AT_MOST = 5_000;

  private KeyScans() {}

  /**
   * A filter that reads other views' records to decide (an approval request's VMs, for where they
   * are): those count against the page's {@link #AT_MOST} as the records it scans do.
   */
  interface Reading<V> extends Predicate<V> {
    /** How many records it has read so far. */
    int reads();
  }

  /** A filter whose reads are the records it has put in {@code read} (a page's memo). */
  static <V> Reading<V> reading(Predicate<V> keep, java.util.Map<?, ?> read) {
    return reading(keep, read::size);
  }

  /** {@code first}, then {@code keep}: what {@code keep} reads counts as it did. */
  static <V> Predicate<V> first(Predicate<V> first, Predicate<V> keep) {
    Predicate<V> both = v -> first.test(v) && keep.test(v);
    return keep instanceof Reading<V> r ? reading(both, r::reads) : both;
  }

  private static <V> Reading<V> reading(Predicate<V> keep, java.util.function.IntSupplier reads) {
    return new Reading<>() {
      @Override
      public boolean test(V v) {
        return keep.test(v);
      }

      @Override
      public int reads() {
        return reads.getAsInt();
      }
    };
  }

  /** Whether a page that examined this many records, with this filter, has read its budget. */
  private static boolean spent(int examined, Predicate<?> keep) {
    return examined + (keep instanceof Reading<?> r ? r.reads() : 0) >= AT_MOST;
  }

  /**
   * What a page read: the records kept, in key order, and where it stopped when its budget ended
   * first (null when it read to the end, or found all it wanted).
   */
  static final class Scanned<V> extends ArrayList<KeyValue<String, V>> {
    private String stoppedAt;

    String stoppedAt() {
      return stoppedAt;
    }
  }

  /** Up to {@code n} of {@code keys} after {@code after} whose value (read by key) passes. */
  static <V> Scanned<V> after(
      NavigableSet<String> keys, Function<String, V> read, String after, Predicate<V> keep, int n) {
    Scanned<V> out = new Scanned<>();
    int examined = 0;
    String last = null;
    for (String key : after == null ? keys : keys.tailSet(after, false)) {
      if (out.size() >= n) {
        break;
      }
      if (spent(examined, keep)) {
        out.stoppedAt = last;
        break;
      }
      examined++;
      last = key;
      V value = read.apply(key); // null: dropped since the key was listed
      if (value != null && keep.test(value)) {
        out.add(KeyValue.pair(key, value));
      }
    }
    return out;
  }

  /** The same, iterating the store (tests, and the views without kept keys). */
  static <V> Scanned<V> after(
      ReadOnlyKeyValueStore<String, V> store, String after, Predicate<V> keep, int n) {
    Scanned<V> out = new Scanned<>();
    int examined = 0;
    String last = null;
    try (KeyValueIterator<String, V> it = after == null ? store.all() : store.range(after, null)) {
      while (out.size() < n && it.hasNext()) {
        KeyValue<String, V> kv = it.next();
        if (kv.key.equals(after)) {
          continue;
        }
        if (spent(examined, keep)) {
          out.stoppedAt = last;
          break;
        }
        examined++;
        last = kv.key;
        if (kv.value != null && keep.test(kv.value)) {
          out.add(kv);
        }
      }
    }
    return out;
  }
}
