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
   * are): those count against the page's {@link #AT_MOST} as the records it scans do. A page tests
   * a record only when what it may read fits in what is left, or when it is the page's first (a
   * page always moves on): a page reads at most {@link #AT_MOST} records, or its first record and
   * what that one names.
   */
  interface Reading<V> extends Predicate<V> {
    /** How many records it has read so far. */
    int reads();

    /** The most records a test of {@code v} may read that it has not read yet. */
    int toRead(V v);

    /**
     * The same, told how many records the page has {@code left}: a filter that must read to know (a
     * rollout's entries) reads at most that many, and answers more than {@code left} when it would
     * need more.
     */
    default int toRead(V v, int left) {
      return toRead(v);
    }
  }

  /**
   * A filter whose reads are the records it has put in {@code read} (a page's memo), and that may
   * read {@code toRead} more to test a record.
   */
  static <V> Reading<V> reading(
      Predicate<V> keep, java.util.Map<?, ?> read, java.util.function.ToIntFunction<V> toRead) {
    return reading(keep, read::size, toRead);
  }

  /**
   * {@code first}, then {@code keep}: what {@code keep} reads counts as it did, and a record {@code
   * first} turns down costs it nothing. {@code first} is tested once a record (a page asks what a
   * record may read, then tests it), and what it reads is not counted: a key or two a record.
   */
  static <V> Predicate<V> first(Predicate<V> first, Predicate<V> keep) {
    if (!(keep instanceof Reading<V> r)) {
      return v -> first.test(v) && keep.test(v);
    }
    return new Reading<>() {
      private V last; // the record tested last, and whether it passed first
      private boolean passed;

      private boolean first(V v) {
        if (v != last) {
          last = v;
          passed = first.test(v);
        }
        return passed;
      }

      @Override
      public boolean test(V v) {
        return first(v) && r.test(v);
      }

      @Override
      public int reads() {
        return r.reads();
      }

      @Override
      public int toRead(V v) {
        return first(v) ? r.toRead(v) : 0;
      }

      @Override
      public int toRead(V v, int left) {
        return first(v) ? r.toRead(v, left) : 0;
      }
    };
  }

  /** A filter that has read {@code reads} records so far, and may read {@code toRead} more. */
  static <V> Reading<V> reading(
      Predicate<V> keep,
      java.util.function.IntSupplier reads,
      java.util.function.ToIntFunction<V> toRead) {
    return new Reading<>() {
      @Override
      public boolean test(V v) {
        return keep.test(v);
      }

      @Override
      public int reads() {
        return reads.getAsInt();
      }

      @Override
      public int toRead(V v) {
        return toRead.applyAsInt(v);
      }
    };
  }

  /** Whether a page that examined this many records, with this filter, has read its budget. */
  private static boolean spent(int examined, Predicate<?> keep) {
    return examined + (keep instanceof Reading<?> r ? r.reads() : 0) >= AT_MOST;
  }

  /**
   * Whether testing {@code v} could take a page that examined this many records past its budget
   * (never the page's first record).
   */
  private static <V> boolean over(int examined, Predicate<V> keep, V v) {
    if (examined == 0 || v == null || !(keep instanceof Reading<V> r)) {
      return false;
    }
    int before = examined + 1 + r.reads();
    return before + r.toRead(v, AT_MOST - before) > AT_MOST;
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
      V value = read.apply(key); // null: dropped since the key was listed
      if (over(examined, keep, value)) {
        out.stoppedAt = last; // the next page tests it first
        break;
      }
      examined++;
      last = key;
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
        if (spent(examined, keep) || over(examined, keep, kv.value)) {
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
