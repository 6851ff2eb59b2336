package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.VmView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * What the silence check asks of each VM's view, kept in memory as {@link VmProcessor} writes the
 * views: when it was last seen, its heartbeat interval, its newest envelope and whether it is
 * silent. The check every {@link VmProcessor#SILENCE_CHECK} then reads no JSON but for the VMs
 * whose silence changes or that are gone: at 100,000 VMs a scan of the store was 100,000 documents
 * every ten seconds on the stream thread.
 *
 * <p>Retention: one entry per view in the task's store, dropped with it. Filled from the store when
 * the task (re)initialises ({@link #reset}, then the first {@link #due}); the processor is the
 * store's only writer and tells this of every write.
 */
final class SilenceWatch {
  /** Instants as epoch milliseconds (MIN_VALUE: none), about 100 bytes a VM with its key. */
  private record Facts(long lastSeenAt, int intervalSeconds, long lastEnvelopeAt, boolean silent) {
    static final long NONE = Long.MIN_VALUE;

    static Facts of(VmView v) {
      return new Facts(
          millis(v.lastSeenAt()),
          v.heartbeatIntervalSeconds() == null
              ? VmViews.DEFAULT_INTERVAL_SECONDS
              : v.heartbeatIntervalSeconds(),
          millis(v.lastEnvelopeAt()),
          v.silent());
    }

    private static long millis(Instant t) {
      return t == null ? NONE : t.toEpochMilli();
    }
  }

  private final Map<String, Facts> facts = new HashMap<>();
  private boolean loaded;

  /**
   * The task's store may hold anything now (a new or revived task): read it whole when next due.
   */
  void reset() {
    facts.clear();
    loaded = false;
  }

  /** The processor wrote this view (null: deleted). */
  void wrote(String vmId, VmView v) {
    if (!loaded) {
      return; // read whole when next due
    }
    if (v == null) {
      facts.remove(vmId);
    } else {
      facts.put(vmId, Facts.of(v));
    }
  }

  /**
   * The VMs the check must look at now: those gone (nothing for {@code gone} in stream time) and
   * those whose silence differs from what their view says; the check reads their views and decides
   * on them ({@link VmViews#silent}), as it did for every view.
   */
  List<String> due(
      KeyValueStore<String, VmView> store,
      Instant now,
      long streamTime,
      Duration gone,
      int silentAfter) {
    if (!loaded) {
      facts.clear();
      try (KeyValueIterator<String, VmView> all = store.all()) {
        all.forEachRemaining(kv -> facts.put(kv.key, Facts.of(kv.value)));
      }
      loaded = true;
    }
    List<String> out = new ArrayList<>();
    facts.forEach(
        (vmId, f) -> {
          boolean vanished =
              f.lastEnvelopeAt() != Facts.NONE
                  && streamTime > 0
                  && streamTime - f.lastEnvelopeAt() >= gone.toMillis();
          if (vanished || maybeChanged(f, now, silentAfter)) {
            out.add(vmId);
          }
        });
    out.sort(null); // the store's key order, as the scan went
    return out;
  }

  /**
   * Whether the check may find the VM's silence changed now ({@link VmViews#silent}): kept to the
   * millisecond, so within a millisecond of the boundary the view is read and decides.
   */
  private static boolean maybeChanged(Facts f, Instant now, int intervals) {
    if (f.lastSeenAt() == Facts.NONE) {
      return f.silent(); // never seen: not silent
    }
    long quiet = now.toEpochMilli() - f.lastSeenAt();
    long limit = (long) f.intervalSeconds() * intervals * 1000;
    return Math.abs(quiet - limit) <= 1 || (quiet > limit) != f.silent();
  }
}
