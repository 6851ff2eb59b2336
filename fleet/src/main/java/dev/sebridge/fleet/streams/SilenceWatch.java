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
  private record Facts(
      Instant lastSeenAt, Integer intervalSeconds, Instant lastEnvelopeAt, boolean silent) {
    static Facts of(VmView v) {
      return new Facts(
          v.lastSeenAt(), v.heartbeatIntervalSeconds(), v.lastEnvelopeAt(), v.silent());
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
              f.lastEnvelopeAt() != null
                  && streamTime > 0
                  && streamTime - f.lastEnvelopeAt().toEpochMilli() >= gone.toMillis();
          if (vanished || silent(f, now, silentAfter) != f.silent()) {
            out.add(vmId);
          }
        });
    out.sort(null); // the store's key order, as the scan went
    return out;
  }

  private static boolean silent(Facts f, Instant now, int intervals) {
    return VmViews.silent(f.lastSeenAt(), f.intervalSeconds(), now, intervals);
  }

  /** How many views are watched (for the tests). */
  int size() {
    return facts.size();
  }
}
