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

/**
 * What the {@link ViewIndex} keeps of the global views, and the answers read from it: each VM's
 * facts (and the group sizes of every grouping asked for), every event's view with the open ones
 * and the open ones released apart (a closed one's packed, {@link ClosedViews}; the open ones by
 * NotBefore, {@link DueEvents}), the events commands were sent for, the agents' results, Azure's
 * inventory. Used by one thread at a time: the one that reads the stores whole into a new one
 * ({@link IndexedViews#read}), then the rollouts task's thread.
 */
final class IndexContents {
  private final Membership membership;
  private final Map<String, VmFacts> vms = new HashMap<>();
  private final Map<String, EventView> events = new HashMap<>(); // open ones
  private final ClosedViews closed = new ClosedViews();
  // The open views by the id as each spells it: a step looks events up tens of thousands of times,
  // nearly always by the view's own spelling (a ledger entry's, a rollout's), found at once rather
  // than through its lower case first.
  private final Map<String, EventView> bySpelling = new HashMap<>();
  private final NavigableMap<String, EventView> openEvents = new TreeMap<>();
  private final NavigableMap<String, EventView> releasedOpen = new TreeMap<>();
  private final DueEvents due = new DueEvents();

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

  /** Whether requests sent commands for the event of {@code key}. */
  boolean sentFor(String key) {
    return sentByEvent.containsKey(key);
  }

  /** A closed view just read from its store, kept read for the step after (as it asks for it). */
  void readNow(String key, EventView closedView) {
    closed.remember(key, closedView);
  }

  /** The sizes of each of {@code groupings} counted from now on. */
  void count(Collection<List<String>> groupings) {
    groupings.forEach(g -> groups.size(g, "", vms));
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
        due.moved(key, old, e);
        if (old != null && old.eventId() != null) {
          bySpelling.remove(old.eventId());
        }
        if (e != null && e.eventId() != null && EventIds.lower(e.eventId()).equals(key)) {
          bySpelling.put(e.eventId(), e);
        }
        put(events, key, e);
        closed.put(key, view instanceof PackedEvent p ? p : null);
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
      e = closed.readNow(eventId);
    }
    return e != null ? e : byKey(EventIds.lower(eventId));
  }

  /** The event's view by its key; null when the views do not have it. */
  private EventView byKey(String key) {
    EventView e = events.get(key);
    return e != null ? e : closed.view(key);
  }

  /** A step begins: the closed views the step before did not read are forgotten. */
  void stepped() {
    closed.stepped();
  }

  /**
   * Takes over the closed views {@code before} read in its last two steps that this one has the
   * same ({@link ClosedViews#keepRead}).
   */
  void keepRead(IndexContents before) {
    closed.keepRead(before.closed);
  }

  /** Every event's view as kept: an open one's, a closed one's packed. */
  private Map<String, Object> everyEvent() {
    Map<String, Object> all = new HashMap<>(events);
    all.putAll(closed.packed());
    return all;
  }

  /** The open events' views, in the store's key order. */
  Collection<EventView> openEvents() {
    return openEvents.values();
  }

  /** The open events whose NotBefore is at or before {@code now}, the soonest first. */
  List<EventView> dueOpenEvents(java.time.Instant now) {
    return due.due(now).stream().map(events::get).toList();
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
                EventView e = byKey(k);
                if (e != null) {
                  out.add(e.eventId());
                }
              });
    } else {
      for (Set<String> keys : List.of(events.keySet(), closed.keys())) {
        keys.forEach(
            k -> {
              if (sentByEvent.containsKey(k)) {
                out.add(byKey(k).eventId());
              }
            });
      }
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
