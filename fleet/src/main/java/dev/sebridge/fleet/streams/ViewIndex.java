package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Ledger;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the rollouts task asks of the global views every tick, kept up to date change by change
 * instead of scanned: each VM's group attributes, silence and newest heartbeat (and the group sizes
 * of every grouping a rollout asked for, counted as VMs change), every event's view (open, and
 * closed for {@code fleet.closed-retention}) with the open ones and the open ones released apart,
 * and the events commands were sent for. A tick then reads nothing fleet-sized and deserialises
 * nothing: at 100,000 VMs a scan of the VM views is 100,000 JSON documents, each second.
 *
 * <p>The global stores' updaters (the global thread) hand each change to {@link #changed}, in the
 * order they applied them; the rollouts task's thread applies them at the start of each step
 * ({@link #refresh}). Changes are queued only while a rollouts task uses the index ({@link
 * #attach}); the first step after it reads the three stores whole, and so does a step after the
 * queue passed {@link #MAX_QUEUED} changes (a task that did not step for long: replaying, or
 * stopped), and one every {@link #REBUILD_EVERY}, which repairs what no change told (a global store
 * restored from its topic again, which does not go through the updaters) and says so in the log.
 */
final class ViewIndex {
  private static final Logger LOG = LoggerFactory.getLogger(ViewIndex.class);

  /** Changes queued at most before the next step reads the stores whole instead. */
  static final int MAX_QUEUED = 500_000;

  /** How often the index is read again whole from the stores, whatever the changes said. */
  static final Duration REBUILD_EVERY = Duration.ofMinutes(10);

  /** What a rollout asks of a VM: its group attributes, whether it is silent, its heartbeat. */
  record VmFacts(
      String zone,
      String scaleSet,
      String resourceGroup,
      String location,
      boolean silent,
      Instant lastHeartbeatAt) {
    static VmFacts of(VmView v) {
      return new VmFacts(
          v.zone(), v.scaleSet(), v.resourceGroup(), v.location(), v.silent(), v.lastHeartbeatAt());
    }

    String attribute(String name) {
      return switch (name) {
        case "zone" -> zone;
        case "scaleSet" -> scaleSet;
        case "resourceGroup" -> resourceGroup;
        case "location" -> location;
        default -> null;
      };
    }
  }

  /** The stores the index reads whole when it (re)builds. */
  record Stores(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests) {}

  private record Change(String store, String key, Object value) {}

  // Written by the global thread, drained by the rollouts task's thread.
  private final ConcurrentLinkedQueue<Change> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private volatile boolean attached;
  private volatile boolean overflowed;

  // The rollouts task's thread only.
  private final Map<String, VmFacts> vms = new HashMap<>();
  private final Map<String, EventView> events = new HashMap<>();
  private final NavigableMap<String, EventView> openEvents = new TreeMap<>();
  private final NavigableMap<String, EventView> releasedOpen = new TreeMap<>();
  private final Map<String, String> sentRequests = new HashMap<>();
  private final GroupCounts groups = new GroupCounts();
  private Instant builtAt;
  private final int maxQueued;

  ViewIndex() {
    this(MAX_QUEUED);
  }

  /**
   * @param maxQueued changes queued at most ({@link #MAX_QUEUED}; fewer in tests)
   */
  ViewIndex(int maxQueued) {
    this.maxQueued = maxQueued;
  }

  /**
   * A global store applied a change ({@code value} null: the key was deleted). Called by the
   * store's updater, after the store has it; ignored while no rollouts task uses the index.
   */
  void changed(String store, String key, Object value) {
    if (!attached) {
      return;
    }
    if (queued.get() >= maxQueued) {
      overflowed = true; // the next step reads the stores whole: the store has this change
      return;
    }
    queue.add(new Change(store, key, value));
    queued.incrementAndGet();
  }

  /** A rollouts task uses the index from now on: its first step reads the stores whole. */
  void attach() {
    attached = true;
    builtAt = null;
  }

  /** The rollouts task left: nothing is queued until one attaches again. */
  void detach() {
    attached = false;
    discardQueued();
  }

  /** Brings the index up to date with what the stores applied: called at the start of a step. */
  void refresh(Stores stores, Instant now) {
    if (builtAt == null || overflowed || !now.isBefore(builtAt.plus(REBUILD_EVERY))) {
      rebuild(stores, now);
    }
    for (Change c = queue.poll(); c != null; c = queue.poll()) {
      queued.decrementAndGet();
      apply(c.store(), c.key(), c.value());
    }
  }

  private void rebuild(Stores stores, Instant now) {
    boolean repair = builtAt != null && !overflowed;
    // Discarded first: what the scan reads is newer than any change queued before it, and any
    // change queued after it is applied on top, in the order the store applied it.
    discardQueued();
    overflowed = false;
    Map<String, VmFacts> oldVms = repair ? Map.copyOf(vms) : Map.of();
    Map<String, EventView> oldEvents = repair ? Map.copyOf(events) : Map.of();
    Map<String, String> oldSent = repair ? Map.copyOf(sentRequests) : Map.of();
    vms.clear();
    events.clear();
    openEvents.clear();
    releasedOpen.clear();
    sentRequests.clear();
    groups.reset();
    scan(stores.vms(), FleetTopology.VMS_VIEW);
    scan(stores.events(), FleetTopology.EVENTS_VIEW);
    scan(stores.requests(), FleetTopology.REQUESTS_VIEW);
    if (repair
        && (!oldVms.equals(vms) || !oldEvents.equals(events) || !oldSent.equals(sentRequests))) {
      LOG.warn(
          "view index: the stores differed from what their changes said (a global store restored"
              + " again?); read whole again: {} VMs, {} events ({} open), {} requests sent",
          vms.size(),
          events.size(),
          openEvents.size(),
          sentRequests.size());
    }
    builtAt = now;
  }

  private <V> void scan(ReadOnlyKeyValueStore<String, V> store, String name) {
    try (KeyValueIterator<String, V> it = store.all()) {
      it.forEachRemaining(kv -> apply(name, kv.key, kv.value));
    }
  }

  private void discardQueued() {
    for (Change c = queue.poll(); c != null; c = queue.poll()) {
      queued.decrementAndGet();
    }
  }

  private void apply(String store, String key, Object value) {
    switch (store) {
      case FleetTopology.VMS_VIEW -> {
        VmFacts now = value instanceof VmView v ? VmFacts.of(v) : null;
        VmFacts old = now == null ? vms.remove(key) : vms.put(key, now);
        groups.moved(key, old, now);
      }
      case FleetTopology.EVENTS_VIEW -> {
        if (value instanceof EventView e) {
          events.put(key, e);
        } else {
          events.remove(key);
        }
        if (value instanceof EventView e && e.open()) {
          openEvents.put(key, e);
        } else {
          openEvents.remove(key);
        }
        if (value instanceof EventView e && e.open() && Ledger.released(e.vms().values())) {
          releasedOpen.put(key, e);
        } else {
          releasedOpen.remove(key);
        }
      }
      case FleetTopology.REQUESTS_VIEW -> {
        if (value instanceof RequestView r
            && r.commandsSentAt() != null
            && r.request() != null
            && r.request().eventId() != null
            && r.request().refusal() == null) {
          sentRequests.put(key, r.request().eventId());
        } else {
          sentRequests.remove(key);
        }
      }
      default -> {
        // not indexed
      }
    }
  }

  /** A VM's facts, or null when the views do not have it. */
  VmFacts vm(String vmId) {
    return vms.get(vmId);
  }

  /** The event's view, by its id in any case; null when the views do not have it. */
  EventView event(String eventId) {
    return events.get(eventId.toLowerCase(Locale.ROOT));
  }

  /** The open events' views, in the store's key order. */
  Collection<EventView> openEvents() {
    return openEvents.values();
  }

  /** The open events the views show released for any VM ({@link Ledger#released}). */
  Collection<EventView> releasedOpenEvents() {
    return releasedOpen.values();
  }

  /** The events of requests that sent commands (one per such request). */
  Collection<String> requestedEvents() {
    return sentRequests.values();
  }

  /** Live (not silent) VMs of the group under this grouping. */
  int groupSize(List<String> groupBy, String group) {
    return groups.size(groupBy, group, vms);
  }
}
