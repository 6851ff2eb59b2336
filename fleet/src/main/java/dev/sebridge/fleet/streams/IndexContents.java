package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.inventory.InventoryPlaces;
import dev.sebridge.fleet.model.EventIds;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.rollout.ObservedReleases;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What the {@link ViewIndex} keeps of the global views, and the answers read from it: each VM's
 * facts (and the group sizes of every grouping asked for), every event's view with the open ones
 * and the open ones released apart, the events commands were sent for, the agents' results, Azure's
 * inventory. Used by one thread at a time: the one that reads the stores whole into a new one, then
 * the rollouts task's thread.
 */
final class IndexContents {
  private final Membership membership;
  private final Map<String, VmFacts> vms = new HashMap<>();
  private final Map<String, EventView> events = new HashMap<>(); // open ones
  // Closed events, packed: a day of them at 100,000 VMs is some 160,000 views no step reads but
  // those its ledger entries, rollouts and requests name.
  private final Map<String, PackedEvent> closed = new HashMap<>();
  // The closed events' views read in this step, and in the one before: those a step reads are
  // nearly always those the next one reads again. Each step forgets those the one before did not
  // read; a change of the event's view forgets it at once.
  private Map<String, EventView> unpacked = new HashMap<>();
  private Map<String, EventView> unpackedBefore = new HashMap<>();
  // The open views by the id as each spells it: a step looks events up tens of thousands of times,
  // nearly always by the view's own spelling (a ledger entry's, a rollout's), found at once rather
  // than through its lower case first.
  private final Map<String, EventView> bySpelling = new HashMap<>();
  private final NavigableMap<String, EventView> openEvents = new TreeMap<>();
  private final NavigableMap<String, EventView> releasedOpen = new TreeMap<>();
  // The open events with a NotBefore, by it (then by key): those due are a range, not a scan.
  private final java.util.NavigableSet<Due> byNotBefore = new java.util.TreeSet<>();

  private record Due(java.time.Instant notBefore, String key) implements Comparable<Due> {
    static Due of(String key, EventView e) {
      return e == null || !e.open() || e.notBefore() == null ? null : new Due(e.notBefore(), key);
    }

    @Override
    public int compareTo(Due o) {
      int c = notBefore.compareTo(o.notBefore);
      return c != 0 ? c : key.compareTo(o.key);
    }
  }

  private final Map<String, RequestFacts> requests = new HashMap<>();
  private final Map<String, Integer> sentByEvent = new HashMap<>(); // lower-case id: requests
  // The requests with a result that did not accept (a few): what a rollout's step asks of each
  // VM it released, answered from a small map rather than the month of requests kept.
  private final Map<String, RequestFacts> unaccepted = new HashMap<>();
  private final GroupCounts groups = new GroupCounts();
  private final InventoryPlaces inventory = new InventoryPlaces(); // with an inventory

  IndexContents(Membership membership) {
    this.membership = membership;
  }

  /**
   * The stores read whole: the VMs, the inventory's names (who Azure's word on an event counts
   * for), the events, the requests; then the groupings in {@code counted} are counted.
   *
   * @throws RuntimeException when a view cannot be read
   */
  static IndexContents read(
      ViewIndex.Stores stores, Membership membership, Collection<List<String>> counted) {
    return read(stores, membership, counted, false);
  }

  /**
   * @param seed whether the closed views requests sent commands for are kept read as the scan reads
   *     them: the step after reads each of them (the ledger looks at every requested event), and a
   *     day of approved events is 160,000 views to read back at 100,000 VMs. Not for a read that
   *     replaces an index in use: it takes the index's own ({@link #keepUnpacked}).
   */
  static IndexContents read(
      ViewIndex.Stores stores,
      Membership membership,
      Collection<List<String>> counted,
      boolean seed) {
    IndexContents c = new IndexContents(membership);
    c.scan(stores.vms(), FleetTopology.VMS_VIEW);
    if (stores.inventory() != null && membership == Membership.INVENTORY) {
      c.scan(stores.inventory(), FleetTopology.INVENTORY_VIEW);
    }
    c.scan(stores.requests(), FleetTopology.REQUESTS_VIEW); // (before the events: what they sent)
    try (KeyValueIterator<String, EventView> it = stores.events().all()) {
      it.forEachRemaining(
          kv -> {
            c.apply(
                FleetTopology.EVENTS_VIEW,
                kv.key,
                IndexedViews.keep(FleetTopology.EVENTS_VIEW, kv.value, membership));
            if (seed && kv.value != null && !kv.value.open() && c.sentByEvent.containsKey(kv.key)) {
              c.remember(kv.key, kv.value);
            }
          });
    }
    counted.forEach(g -> c.groups.size(g, "", c.vms));
    return c;
  }

  private <V> void scan(ReadOnlyKeyValueStore<String, V> store, String name) {
    try (KeyValueIterator<String, V> it = store.all()) {
      it.forEachRemaining(kv -> apply(name, kv.key, IndexedViews.keep(name, kv.value, membership)));
    }
  }

  /** The groupings whose sizes are counted. */
  Set<List<String>> groupings() {
    return groups.groupings();
  }

  /**
   * How many keys differ from {@code other}'s, those in {@code moving} aside (they changed while
   * the two were read).
   */
  int differences(IndexContents other, Set<ViewIndex.Key> moving) {
    return IndexedViews.differences(vms, other.vms, FleetTopology.VMS_VIEW, moving)
        + IndexedViews.differences(
            everyEvent(), other.everyEvent(), FleetTopology.EVENTS_VIEW, moving)
        + IndexedViews.differences(requests, other.requests, FleetTopology.REQUESTS_VIEW, moving);
  }

  /** Takes in what the index keeps of a change; reads everything it needs before changing. */
  void apply(String store, String key, Object kept) {
    switch (store) {
      case FleetTopology.VMS_VIEW -> {
        VmFacts now = kept instanceof VmFacts f ? placed(key, f) : null;
        VmFacts old = now == null ? vms.remove(key) : vms.put(key, now);
        groups.moved(key, old, now);
      }
      case FleetTopology.EVENTS_VIEW -> {
        Object view = kept instanceof EventView v && !v.open() ? PackedEvent.of(v) : kept;
        EventView e = view instanceof EventView v ? v : null; // open
        boolean released = e != null && released(e);
        EventView old = events.get(key);
        Due was = Due.of(key, old);
        if (was != null) {
          byNotBefore.remove(was);
        }
        if (old != null && old.eventId() != null) {
          bySpelling.remove(old.eventId());
        }
        if (e != null && e.eventId() != null && EventIds.lower(e.eventId()).equals(key)) {
          bySpelling.put(e.eventId(), e);
        }
        Due due = Due.of(key, e);
        if (due != null) {
          byNotBefore.add(due);
        }
        put(events, key, e);
        put(closed, key, view instanceof PackedEvent p ? p : null);
        forget(unpacked, key);
        forget(unpackedBefore, key);
        put(openEvents, key, e);
        put(releasedOpen, key, released ? e : null);
      }
      case FleetTopology.INVENTORY_VIEW -> {
        boolean renamed = inventory.moved(key, kept instanceof InventoryPlaces.Place p ? p : null);
        // A known VM is where the inventory puts it now: moved (to another resource group) while
        // it is down, or before its next envelope, its group and its group's size follow at once.
        VmFacts was = vms.get(key);
        if (was != null) {
          VmFacts now = placed(key, was);
          if (!now.equals(was)) {
            vms.put(key, now);
            groups.moved(key, was, now);
          }
        }
        if (!renamed) {
          return; // a refresh that changed something else of the VM than its name or group
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
        put(unaccepted, key, r == null || r.unaccepted().isEmpty() ? null : r);
      }
      default -> {
        // not indexed
      }
    }
  }

  /**
   * A known VM's facts with its attributes where Azure's inventory puts it now (its view was
   * stamped from the inventory's record at its last envelope; the record may have changed since),
   * computed from its view's facts and the place alone, so the index changed by changes and the
   * index read whole agree whatever order the changes came in. An unknown VM's are its agent's own
   * claims, and the inventory's place is read for it where asked ({@code GlobalWorld.attribute}). A
   * VM the inventory no longer lists (deleted by a scale-in, or out of its scope) is where its view
   * has it, and unknown from the refresh that dropped it, as its next envelope would stamp it: out
   * of its group's size at once. Before, it stayed in the size until it went silent (three
   * heartbeats, 15 minutes by default), and a percentage limit there was computed from VMs that no
   * longer existed.
   */
  private VmFacts placed(String vmId, VmFacts f) {
    VmFacts view = f.view();
    if (view.unknown()) {
      return view;
    }
    InventoryPlaces.Place p = inventory.place(vmId);
    return p == null && membership == Membership.INVENTORY ? view.unlisted() : view.at(p);
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
    EventView e = bySpelling.get(eventId);
    if (e == null) {
      e = unpacked.get(eventId); // a closed view read this step, by its key or its own spelling
    }
    if (e != null) {
      return e;
    }
    String key = EventIds.lower(eventId);
    e = events.get(key);
    return e != null ? e : closedView(key);
  }

  /** A closed event's view, read back once a step at most; null when the index has none. */
  private EventView closedView(String key) {
    EventView e = unpacked.get(key);
    if (e != null) {
      return e;
    }
    PackedEvent p = closed.get(key);
    if (p == null) {
      return null;
    }
    e = unpackedBefore.get(key);
    if (e == null) {
      e = p.view();
    }
    remember(key, e);
    return e;
  }

  /**
   * A closed view read in this step, by its key and by its own spelling (a step asks by the id as
   * its entries and rollouts spell it, found at once as an open one is).
   */
  private void remember(String key, EventView e) {
    forget(unpackedBefore, key);
    unpacked.put(key, e);
    String spelled = e.eventId();
    if (spelled != null && !spelled.equals(key) && EventIds.lower(spelled).equals(key)) {
      unpacked.put(spelled, e);
    }
  }

  /** A closed view no longer kept read: by its key and its spelling. */
  private static void forget(Map<String, EventView> m, String key) {
    EventView v = m.remove(key);
    if (v != null && v.eventId() != null) {
      m.remove(v.eventId(), v);
    }
  }

  /** A step begins: the closed views the step before did not read are forgotten. */
  void stepped() {
    unpackedBefore = unpacked;
    unpacked = new HashMap<>();
  }

  /**
   * Takes over the closed views {@code before} read in its last two steps whose packed views this
   * one has too (the same views): a whole read that replaces the index does not read them all back.
   */
  void keepUnpacked(IndexContents before) {
    for (Map<String, EventView> m : List.of(before.unpackedBefore, before.unpacked)) {
      m.forEach(
          (k, v) -> {
            PackedEvent p = closed.get(k);
            if (p != null && p.equals(before.closed.get(k))) {
              remember(k, v);
            }
          });
    }
  }

  /** Every event's view as kept: an open one's, a closed one's packed. */
  private Map<String, Object> everyEvent() {
    Map<String, Object> all = new HashMap<>(events);
    all.putAll(closed);
    return all;
  }

  /** The open events' views, in the store's key order. */
  Collection<EventView> openEvents() {
    return openEvents.values();
  }

  /** The open events whose NotBefore is at or before {@code now}, the soonest first. */
  List<EventView> dueOpenEvents(java.time.Instant now) {
    List<EventView> out = new ArrayList<>();
    for (Due d : byNotBefore) {
      if (d.notBefore().isAfter(now)) {
        break;
      }
      out.add(events.get(d.key()));
    }
    return out;
  }

  /** Released for any VM, as the agents' parts or Azure's word on the fleet's VMs say. */
  private boolean released(EventView e) {
    return ObservedReleases.released(e.vms().values()) || releasedByAzure(e);
  }

  /**
   * Whether Azure's central delivery says the event started or completed for VMs of this fleet: a
   * name it lists is a VM Azure's inventory lists, or (without an inventory) an agent of the fleet
   * reported the event. Without an inventory Event Grid's word covers every VM of the subscription,
   * and an event only it reported, of a VM outside the fleet, would hold every group of every
   * rollout; but an event an agent reported is the fleet's, and Azure's Started is the first word
   * of an approval from outside the fleet (IMDS has no "approved": the agent of the VM it reboots
   * says Started only once the VM is up again, minutes later).
   */
  boolean releasedByAzure(EventView e) {
    return e != null
        && e.central() != null
        && e.central().released()
        && (azureListsFleetVm(e) || (membership == Membership.AGENTS && !e.vms().isEmpty()));
  }

  /**
   * Whether Azure's central delivery of the event names a VM of this fleet (with an inventory
   * only): a VM the inventory lists reported the event, or Azure names one the inventory lists in
   * the resource group of the event's ARM id when it has one (a namesake elsewhere in the
   * subscription held every group of every rollout, by name, for an hour; a VM moved to another
   * resource group is the fleet's by its agent's report until the inventory's next refresh).
   */
  boolean azureListsFleetVm(EventView e) {
    return e != null
        && membership == Membership.INVENTORY
        && e.central() != null
        && (e.vms().keySet().stream().anyMatch(id -> inventory.place(id) != null)
            || e.central().resources().stream()
                .anyMatch(name -> inventory.listed(name, e.central().resourceId())));
  }

  /** The open events the views show released for any VM ({@link ObservedReleases#released}). */
  Collection<EventView> releasedOpenEvents() {
    return releasedOpen.values();
  }

  /**
   * The events requests sent commands for that the views have (one the views do not have lists no
   * VM to count): read from the smaller of the two, never the requests' whole history.
   */
  Collection<String> requestedEvents() {
    List<String> out = new ArrayList<>();
    if (sentByEvent.size() < events.size() + closed.size()) {
      sentByEvent
          .keySet()
          .forEach(
              k -> {
                EventView e = events.get(k);
                e = e != null ? e : closedView(k);
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
      closed
          .keySet()
          .forEach(
              k -> {
                if (sentByEvent.containsKey(k)) {
                  out.add(closedView(k).eventId());
                }
              });
    }
    return out;
  }

  /**
   * What the index keeps of a request with results that did not accept (those results by vmId, and
   * what it counted if one was {@code resources-changed}): {@link RequestFacts#NONE} when every
   * agent accepted, or none answered yet, or the request is unknown.
   */
  RequestFacts unaccepted(String requestId) {
    return unaccepted.getOrDefault(requestId, RequestFacts.NONE);
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
  InventoryPlaces inventory() {
    return inventory;
  }

  /** Where the inventory puts a VM, or null when it does not list it (or there is none). */
  InventoryPlaces.Place place(String vmId) {
    return inventory.place(vmId);
  }

  /** Live (not silent) VMs of the group under this grouping, those unknown left out. */
  int groupSize(List<String> groupBy, String group) {
    return groups.size(groupBy, group, vms);
  }

  /** How many VMs, events (open ones), requests and events sent for it keeps, for a log line. */
  String sizes() {
    return vms.size()
        + " VMs, "
        + (events.size() + closed.size())
        + " events ("
        + openEvents.size()
        + " open), "
        + requests.size()
        + " requests kept ("
        + sentByEvent.size()
        + " events sent for)";
  }
}
