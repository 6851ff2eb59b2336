package dev.sebridge.fleet.api;

import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The newest approval requests (by when they were made), kept as the requests view changes: the
 * page lists the newest 50 by reading 50 views by key, where it read and sorted every request of a
 * month ({@code fleet.history-retention}; at 100,000 VMs a hundred thousand or more, each with a
 * result per VM) on every refresh, until 2026-11-29 (it pages through these now, 50 a page). Holds
 * the keys of the newest {@link #KEPT} only. When one of them goes from the view while older ones
 * were left out (retention reached it: fewer than {@code KEPT} requests are younger than a month,
 * so the view is small), the next read fills the set again from one read of the view.
 *
 * <p>Written by the global thread ({@link #keyChanged}), read by any; one lock, held for a change
 * of a request or a read of at most {@code KEPT} keys, never while the view is read for a refill
 * (the refill fills the set from what it read; a change that came meanwhile makes the next read
 * fill it again).
 */
public final class RecentRequests implements TopologyObserver {
  /** How many are kept: more than the page shows, so that deletions rarely force a refill. */
  public static final int KEPT = 200;

  private record Entry(Instant at, String key) {}

  /**
   * Oldest first (a request without a time the oldest); of two made in the same instant (a wave's
   * releases are) the one later in the view's key order first, so that the newest, walked from the
   * end, come as a sort of the view by time alone would give them (the view's order among equals).
   */
  private static final Comparator<Entry> ORDER =
      Comparator.comparing(Entry::at, Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
          .thenComparing(Entry::key, dev.sebridge.fleet.ViewTallies.STORE_ORDER.reversed());

  private final TreeSet<Entry> newest = new TreeSet<>(ORDER); // oldest first
  private final Map<String, Entry> kept = new HashMap<>();

  /** Whether a request of the view is not among {@link #newest} (left out, or evicted). */
  private boolean leftOut;

  /** Whether {@link #newest} may miss a request younger than one it holds. */
  private boolean stale;

  /** Changes applied so far: a refill read while one came fills again on the next read. */
  private long changes;

  @Override
  public void keyChanged(String store, String key, Object value) {
    if (store.equals(FleetTopology.REQUESTS_VIEW)) {
      synchronized (this) {
        changes++;
        apply(key, value);
      }
    }
  }

  private void apply(String key, Object value) {
    Entry before = kept.get(key);
    if (value instanceof RequestView r && r.request() != null) {
      Entry now = new Entry(r.request().requestedAt(), key);
      if (now.equals(before)) {
        return; // a result came: the request is where it was
      }
      if (before != null) {
        // Its time moved (rare): one left out may now belong where it was.
        drop(before);
        stale |= leftOut;
      }
      take(now);
    } else if (before != null) {
      drop(before);
      stale |= leftOut; // an older one left out may now belong
    } else if (value == null) {
      // One left out went (retention takes the oldest): whether older ones are left still is
      // known again from the next refill. Until 2026-11-29 the page kept saying so for good.
      stale |= leftOut;
    }
  }

  private void take(Entry e) {
    if (newest.size() < KEPT) {
      add(e);
    } else if (ORDER.compare(e, newest.first()) > 0) {
      drop(newest.first());
      leftOut = true;
      add(e);
    } else {
      leftOut = true;
    }
  }

  private void add(Entry e) {
    newest.add(e);
    kept.put(e.key(), e);
  }

  private void drop(Entry e) {
    if (e != null) {
      newest.remove(e);
      kept.remove(e.key());
    }
  }

  /** Nothing kept yet: its first read fills it from the whole view (views without kept keys). */
  static RecentRequests unkept() {
    RecentRequests r = new RecentRequests();
    r.stale = true;
    return r;
  }

  /**
   * The newest approval requests' keys.
   *
   * @param keys at most {@link #KEPT}, the newest first
   * @param older whether the view holds older requests than those
   */
  public record Newest(List<String> keys, boolean older) {}

  /** The keys of the newest requests of {@code store} ({@link #newest}), read once. */
  Newest read(ReadOnlyKeyValueStore<String, RequestView> store) {
    List<String> keys =
        newest(
            KEPT,
            () -> {
              Map<String, RequestView> every = new HashMap<>();
              try (KeyValueIterator<String, RequestView> it = store.all()) {
                it.forEachRemaining(kv -> every.put(kv.key, kv.value));
              }
              return every;
            });
    return new Newest(keys, olderLeftOut());
  }

  /**
   * Whether the view holds requests older than those kept (as of the last change or refill): the
   * page then says the CLI and the API list them.
   */
  public synchronized boolean olderLeftOut() {
    return leftOut;
  }

  /**
   * The keys of the newest {@code n} requests (at most {@link #KEPT}), the newest first.
   *
   * @param all every request's view, read only when a refill is due
   */
  public List<String> newest(int n, Supplier<Map<String, RequestView>> all) {
    boolean refill;
    long seen;
    synchronized (this) {
      refill = stale;
      seen = changes;
    }
    if (refill) {
      // Read outside the lock: the global thread goes on applying changes meanwhile. If one came
      // during the read, the set is filled from it all the same and filled again next time.
      Map<String, RequestView> every = all.get();
      synchronized (this) {
        newest.clear();
        kept.clear();
        leftOut = false;
        stale = false;
        every.forEach(this::apply);
        stale = changes != seen;
      }
    }
    synchronized (this) {
      List<String> out = new ArrayList<>();
      for (Entry e : newest.descendingSet()) {
        if (out.size() == n) {
          break;
        }
        out.add(e.key());
      }
      return out;
    }
  }
}
