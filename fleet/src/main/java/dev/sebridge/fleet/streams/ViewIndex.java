package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventIds;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Ledger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the rollouts task asks of the global views every tick, kept up to date change by change
 * instead of scanned: each VM's group attributes, silence and newest heartbeat (and the group sizes
 * of every grouping a rollout asked for, counted as VMs change), every event's view (open, and
 * closed for {@code fleet.closed-retention}) with the open ones and the open ones released apart,
 * the events commands were sent for, and the agents' results. A tick then reads nothing fleet-sized
 * and deserialises nothing: at 100,000 VMs a scan of the VM views is 100,000 JSON documents, each
 * second.
 *
 * <p>The global stores' updaters (the global thread) hand each change to {@link #changed}; the
 * rollouts task's thread takes them in at the start of each step ({@link #refresh}). Changes wait
 * coalesced by key, only the newest of each, and as little as a rollout needs (a VM's facts, not
 * its view; a request's event and the results that did not accept): at most one entry per key of
 * the views, however long the task did not step. Nothing waits while no rollouts task uses the
 * index ({@link #attach}, {@link #detach}). The first step after attaching reads the three stores
 * whole; so does every step {@link #REBUILD_EVERY} later, a safety net that should find nothing to
 * repair (it logs a WARN, and counts, when it does), and the first step {@link
 * #RETRY_AFTER_FAILURE} after one that failed: a change that cannot be taken in (a view the index
 * cannot read) fails the step, and every step after it until the stores can be read whole, never a
 * step on an index without the change.
 */
final class ViewIndex {
  private static final Logger LOG = LoggerFactory.getLogger(ViewIndex.class);

  /** How often the index is read again whole from the stores, whatever the changes said. */
  static final Duration REBUILD_EVERY = Duration.ofMinutes(10);

  /** After a step that could not read the views, how long until the next tries again. */
  static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(30);

  /** The stores the index reads whole when it (re)builds. */
  record Stores(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests,
      ReadOnlyKeyValueStore<String, dev.sebridge.fleet.model.InventoryVm> inventory) {
    /** Without an inventory. */
    Stores(
        ReadOnlyKeyValueStore<String, VmView> vms,
        ReadOnlyKeyValueStore<String, EventView> events,
        ReadOnlyKeyValueStore<String, RequestView> requests) {
      this(vms, events, requests, null);
    }
  }

  /** A key of one of the views. */
  record Key(String store, String key) {}

  /** A key deleted, or a request that sent nothing (a map holds no null). */
  static final Object NONE = new Object();

  // Written by the global thread, taken in by the rollouts task's thread.
  private final ConcurrentHashMap<Key, Object> pending = new ConcurrentHashMap<>();
  private volatile boolean attached;
  private volatile boolean unreadable;

  // The rollouts task's thread only.
  private final Map<String, VmFacts> vms = new HashMap<>();
  private final Map<String, EventView> events = new HashMap<>();
  private final NavigableMap<String, EventView> openEvents = new TreeMap<>();
  private final NavigableMap<String, EventView> releasedOpen = new TreeMap<>();
  private final Map<String, RequestFacts> requests = new HashMap<>();
  private final Map<String, Integer> sentByEvent = new HashMap<>(); // lower-case id: requests
  private final GroupCounts groups = new GroupCounts();
  private final dev.sebridge.fleet.inventory.InventoryPlaces inventory =
      new dev.sebridge.fleet.inventory.InventoryPlaces(); // with an inventory
  private final Membership membership;
  private Instant builtAt;
  private Instant failedAt;
  private int repairs;

  ViewIndex(Membership membership) {
    this.membership = membership;
  }

  /** Whether membership comes from Azure's inventory (its store is then read too). */
  boolean inventoried() {
    return membership == Membership.INVENTORY;
  }

  /**
   * A global store applied a change ({@code value} null: the key was deleted). Called by the
   * store's updater, after the store has it; ignored while no rollouts task uses the index. Never
   * throws (it runs on the global thread): a value it cannot read marks the index for a whole read,
   * which then fails the step.
   */
  void changed(String store, String key, Object value) {
    if (!attached) {
      return;
    }
    try {
      Object kept = IndexedViews.keep(store, value, membership);
      if (kept != null) {
        pending.put(new Key(store, key), kept);
      }
    } catch (RuntimeException e) {
      unreadable = true;
      LOG.error("view index: cannot read the change of {} in {}", key, store, e);
    }
  }

  /** A rollouts task uses the index from now on: its first step reads the stores whole. */
  void attach() {
    attached = true;
    builtAt = null;
  }

  /** The rollouts task left: nothing waits, and nothing is kept, until one attaches again. */
  void detach() {
    attached = false;
    pending.clear();
    clear();
    builtAt = null;
    failedAt = null;
  }

  /**
   * Brings the index up to date with what the stores applied: called at the start of a step.
   *
   * @throws RuntimeException when a change or a store cannot be read: the step must not go on, and
   *     the next one reads the stores whole again
   */
  void refresh(Stores stores, Instant now) {
    if (failedAt != null && now.isBefore(failedAt.plus(RETRY_AFTER_FAILURE))) {
      throw new IllegalStateException(
          "the view index could not read the views at "
              + failedAt
              + "; read again from "
              + failedAt.plus(RETRY_AFTER_FAILURE));
    }
    try {
      if (builtAt == null || unreadable || !now.isBefore(builtAt.plus(REBUILD_EVERY))) {
        rebuild(stores, now);
      }
      takeIn();
      failedAt = null;
    } catch (RuntimeException e) {
      builtAt = null;
      failedAt = now;
      LOG.error(
          "view index: cannot read the views; nothing is stepped or released until it can (read"
              + " again in {})",
          RETRY_AFTER_FAILURE,
          e);
      throw e;
    }
  }

  private void takeIn() {
    for (Key k : pending.keySet()) {
      Object v = pending.remove(k);
      if (v != null) {
        apply(k.store(), k.key(), v);
      }
    }
  }

  private void rebuild(Stores stores, Instant now) {
    boolean check = builtAt != null && !unreadable;
    Map<String, VmFacts> oldVms = Map.of();
    Map<String, EventView> oldEvents = Map.of();
    Map<String, RequestFacts> oldRequests = Map.of();
    if (check) {
      takeIn();
      oldVms = Map.copyOf(vms);
      oldEvents = Map.copyOf(events);
      oldRequests = Map.copyOf(requests);
    }
    // What waits is let go first: the scan reads each key at least as new (a change is handed
    // over after its store has it), and a change handed over after this is taken in on top.
    Set<Key> moving = new java.util.HashSet<>();
    for (Key k : pending.keySet()) {
      pending.remove(k);
      moving.add(k);
    }
    unreadable = false;
    clear();
    scan(stores.vms(), FleetTopology.VMS_VIEW);
    if (stores.inventory() != null && membership == Membership.INVENTORY) {
      // the names first: who Azure's word on an event counts for
      scan(stores.inventory(), FleetTopology.INVENTORY_VIEW);
    }
    scan(stores.events(), FleetTopology.EVENTS_VIEW);
    scan(stores.requests(), FleetTopology.REQUESTS_VIEW);
    if (check) {
      // A key that changed while the stores were read is not a difference.
      moving.addAll(pending.keySet());
      int differ =
          IndexedViews.differences(oldVms, vms, FleetTopology.VMS_VIEW, moving)
              + IndexedViews.differences(oldEvents, events, FleetTopology.EVENTS_VIEW, moving)
              + IndexedViews.differences(
                  oldRequests, requests, FleetTopology.REQUESTS_VIEW, moving);
      if (differ > 0) {
        repairs++;
        LOG.warn(
            "view index: {} view(s) differed from what their changes said; read whole again:"
                + " {} VMs, {} events ({} open), {} requests kept ({} events sent for)",
            differ,
            vms.size(),
            events.size(),
            openEvents.size(),
            requests.size(),
            sentByEvent.size());
      }
    }
    builtAt = now;
  }

  /** How many whole reads found the index differing from the views (expected: none). */
  int repairs() {
    return repairs;
  }

  private void clear() {
    vms.clear();
    events.clear();
    openEvents.clear();
    releasedOpen.clear();
    requests.clear();
    sentByEvent.clear();
    groups.reset();
    inventory.clear();
  }

  private <V> void scan(ReadOnlyKeyValueStore<String, V> store, String name) {
    try (KeyValueIterator<String, V> it = store.all()) {
      it.forEachRemaining(kv -> apply(name, kv.key, IndexedViews.keep(name, kv.value, membership)));
    }
  }

  /** Takes in what the index keeps of a change; reads everything it needs before changing. */
  private void apply(String store, String key, Object kept) {
    switch (store) {
      case FleetTopology.VMS_VIEW -> {
        VmFacts now = kept instanceof VmFacts f ? f : null;
        VmFacts old = now == null ? vms.remove(key) : vms.put(key, now);
        groups.moved(key, old, now);
      }
      case FleetTopology.EVENTS_VIEW -> {
        EventView e = kept instanceof EventView v ? v : null;
        boolean open = e != null && e.open();
        boolean released = open && released(e);
        put(events, key, e);
        put(openEvents, key, open ? e : null);
        put(releasedOpen, key, released ? e : null);
      }
      case FleetTopology.INVENTORY_VIEW -> {
        if (!inventory.moved(
            key, kept instanceof dev.sebridge.fleet.inventory.InventoryPlaces.Place p ? p : null)) {
          return; // a refresh that changed something else of the VM
        }
        // Azure's word on an open event may now count, or no longer (a few events: those Azure
        // reported).
        for (Map.Entry<String, EventView> e : new ArrayList<>(openEvents.entrySet())) {
          EventView v = e.getValue();
          if (v.central() != null) {
            put(releasedOpen, e.getKey(), released(v) ? v : null);
          }
        }
      }
      case FleetTopology.REQUESTS_VIEW -> {
        RequestFacts r = kept instanceof RequestFacts f ? f : null;
        RequestFacts old = r == null ? requests.remove(key) : requests.put(key, r);
        if (old != null && old.sentEvent() != null) {
          sentByEvent.computeIfPresent(
              EventIds.lower(old.sentEvent()), (e, n) -> n > 1 ? n - 1 : null);
        }
        if (r != null && r.sentEvent() != null) {
          sentByEvent.merge(EventIds.lower(r.sentEvent()), 1, Integer::sum);
        }
      }
      default -> {
        // not indexed
      }
    }
  }

  private static <V> void put(Map<String, V> m, String key, V value) {
    if (value == null) {
      m.remove(key);
    } else {
      m.put(key, value);
    }
  }

  /** A VM's facts, or null when the views do not have it. */
  VmFacts vm(String vmId) {
    return vms.get(vmId);
  }

  /** The event's view, by its id in any case; null when the views do not have it. */
  EventView event(String eventId) {
    return events.get(EventIds.lower(eventId));
  }

  /** The open events' views, in the store's key order. */
  Collection<EventView> openEvents() {
    return openEvents.values();
  }

  /**
   * Whether Azure's central delivery says the event started or completed for VMs of this fleet: a
   * name it lists is a VM Azure's inventory lists (with an inventory only: without one, Event
   * Grid's word covers every VM of the subscription, and an event of a VM outside the fleet would
   * hold every group of every rollout).
   */
  /** Released for any VM, as the agents' parts or Azure's word on the fleet's VMs say. */
  private boolean released(EventView e) {
    return Ledger.released(e.vms().values()) || releasedByAzure(e);
  }

  boolean releasedByAzure(EventView e) {
    return e != null
        && membership == Membership.INVENTORY
        && e.central() != null
        && e.central().released()
        && e.central().resources().stream().anyMatch(inventory::listed);
  }

  /** The open events the views show released for any VM ({@link Ledger#released}). */
  Collection<EventView> releasedOpenEvents() {
    return releasedOpen.values();
  }

  /**
   * The events requests sent commands for that the views have (one the views do not have lists no
   * VM to count): read from the smaller of the two, never the requests' whole history.
   */
  Collection<String> requestedEvents() {
    List<String> out = new ArrayList<>();
    if (sentByEvent.size() < events.size()) {
      sentByEvent
          .keySet()
          .forEach(
              k -> {
                EventView e = events.get(k);
                if (e != null) {
                  out.add(e.eventId());
                }
              });
    } else {
      events.forEach(
          (k, e) -> {
            if (sentByEvent.containsKey(k)) {
              out.add(e.eventId());
            }
          });
    }
    return out;
  }

  /** The request's facts, or null when it sent nothing and has no result (or is unknown). */
  RequestFacts request(String requestId) {
    return requests.get(requestId);
  }

  /**
   * Whether a reporting VM is one the fleet may count by vmId: with an inventory, only a VM whose
   * view it knows (an unknown vmId, or one without a view, is known by name only).
   */
  boolean known(String vmId) {
    VmFacts f = vms.get(vmId);
    return f == null ? membership == Membership.AGENTS : !f.unknown();
  }

  /** Azure's inventory as the index keeps it (with an inventory only: empty without one). */
  dev.sebridge.fleet.inventory.InventoryPlaces inventory() {
    return inventory;
  }

  /** Where the inventory puts a VM, or null when it does not list it (or there is none). */
  dev.sebridge.fleet.inventory.InventoryPlaces.Place place(String vmId) {
    return inventory.place(vmId);
  }

  /** Live (not silent) VMs of the group under this grouping, those unknown left out. */
  int groupSize(List<String> groupBy, String group) {
    return groups.size(groupBy, group, vms);
  }
}
