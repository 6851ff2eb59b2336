package dev.sebridge.fleet.api;

import dev.sebridge.fleet.ViewTallies;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.fleet.streams.FleetTopology;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The fleet view as the API reads it: the global stores, which every instance holds whole, so any
 * instance answers any query without asking another (docs/fleet.md says why).
 */
public final class FleetViews {
  private final Supplier<ReadOnlyKeyValueStore<String, VmView>> vms;
  private final Supplier<ReadOnlyKeyValueStore<String, EventView>> events;
  private final Supplier<ReadOnlyKeyValueStore<String, RequestView>> requests;
  private final RolloutViews rolloutViews;
  private final Supplier<ReadOnlyKeyValueStore<String, PolicyDecision>> decisions;
  private ViewTallies keys; // null: pages iterate the stores (tests)
  private CampaignIndex campaigns; // null: computed from the events view per call (tests)
  private RecentRequests recent; // null: the newest requests found by reading every one (tests)
  private Supplier<ReadOnlyKeyValueStore<String, InventoryVm>> inventory =
      () -> {
        throw new IllegalStateException("no inventory is configured (fleet.inventory.*)");
      };

  /** Views whose rollouts are stored whole (tests). */
  FleetViews(
      Supplier<ReadOnlyKeyValueStore<String, VmView>> vms,
      Supplier<ReadOnlyKeyValueStore<String, EventView>> events,
      Supplier<ReadOnlyKeyValueStore<String, RequestView>> requests,
      Supplier<ReadOnlyKeyValueStore<String, Rollout>> rollouts,
      Supplier<ReadOnlyKeyValueStore<String, PolicyDecision>> decisions) {
    this(vms, events, requests, rollouts, null, decisions);
  }

  FleetViews(
      Supplier<ReadOnlyKeyValueStore<String, VmView>> vms,
      Supplier<ReadOnlyKeyValueStore<String, EventView>> events,
      Supplier<ReadOnlyKeyValueStore<String, RequestView>> requests,
      Supplier<ReadOnlyKeyValueStore<String, Rollout>> rollouts,
      Supplier<ReadOnlyKeyValueStore<String, RolloutPart>> rolloutParts,
      Supplier<ReadOnlyKeyValueStore<String, PolicyDecision>> decisions) {
    this.vms = vms;
    this.events = events;
    this.requests = requests;
    this.rolloutViews = new RolloutViews(rollouts, rolloutParts);
    this.decisions = decisions;
  }

  /** The views of a running Kafka Streams instance. */
  public static FleetViews of(KafkaStreams streams) {
    return new FleetViews(
        () -> store(streams, FleetTopology.VMS_VIEW),
        () -> store(streams, FleetTopology.EVENTS_VIEW),
        () -> store(streams, FleetTopology.REQUESTS_VIEW),
        () -> store(streams, FleetTopology.ROLLOUTS_VIEW),
        () -> store(streams, FleetTopology.ROLLOUT_PARTS_VIEW),
        () -> store(streams, FleetTopology.POLICIES_VIEW));
  }

  /**
   * These views, paged through the keys {@code keys} keeps as the views change (a service): a page
   * reads the views it lists by key, instead of iterating the store (which copies every key after
   * the cursor first).
   */
  public FleetViews withKeys(ViewTallies keys) {
    this.keys = keys;
    return this;
  }

  /** These views with the newest requests kept as the requests view changes (a service). */
  public FleetViews withRecentRequests(RecentRequests recent) {
    this.recent = recent;
    return this;
  }

  /**
   * The keys of the newest approval requests (by when they were made; at most {@link
   * RecentRequests#KEPT}), the newest first: kept as the view changes (without the kept keys, the
   * whole view is read and sorted). Each request is then read by key ({@link #request}).
   */
  public RecentRequests.Newest newestRequests() {
    return (recent == null ? RecentRequests.unkept() : recent).read(requests.get());
  }

  /** These views with the campaigns kept as the events view changes (a service). */
  public FleetViews withCampaigns(CampaignIndex campaigns) {
    this.campaigns = campaigns;
    return this;
  }

  /**
   * The maintenance campaigns: as kept ({@link CampaignIndex}), or, for views without them, from a
   * read of every event view.
   */
  public CampaignIndex campaigns() {
    ReadOnlyKeyValueStore<String, EventView> store = events.get(); // throws while not running
    return campaigns != null ? campaigns : CampaignIndex.of(all(store));
  }

  /** An event's view by its key: an open one as kept (no JSON), any other read from the view. */
  public EventView eventByKey(String key) {
    ReadOnlyKeyValueStore<String, EventView> store = events.get();
    EventView kept = keys == null ? null : keys.openEventViews().get(key);
    return kept != null ? kept : store.get(key);
  }

  /** The open events: as kept, or, for views without them, from a read of every event view. */
  public List<EventView> openEvents() {
    ReadOnlyKeyValueStore<String, EventView> store = events.get();
    return keys != null
        ? List.copyOf(keys.openEventViews().values())
        : all(store).stream().filter(EventView::open).toList();
  }

  /** These views with Azure's inventory (a service with {@code fleet.inventory.*}). */
  public FleetViews withInventory(Supplier<ReadOnlyKeyValueStore<String, InventoryVm>> inventory) {
    this.inventory = inventory;
    return this;
  }

  /** The inventory store of a running Kafka Streams instance that has one. */
  public static ReadOnlyKeyValueStore<String, InventoryVm> inventoryOf(KafkaStreams streams) {
    return store(streams, FleetTopology.INVENTORY_VIEW);
  }

  /** Azure's inventory, by lower-case vmId (only with {@code fleet.inventory.*}). */
  public ReadOnlyKeyValueStore<String, InventoryVm> inventory() {
    return inventory.get();
  }

  private static <V> ReadOnlyKeyValueStore<String, V> store(KafkaStreams streams, String name) {
    KafkaStreams.State state = streams.state();
    if (!state.isRunningOrRebalancing()) {
      throw new Unavailable(state);
    }
    try {
      return streams.store(
          StoreQueryParameters.fromNameAndType(
              name, QueryableStoreTypes.<String, V>keyValueStore()));
    } catch (IllegalStateException e) { // (Kafka Streams' "not running", the state moved on)
      KafkaStreams.State now = streams.state();
      if (!now.isRunningOrRebalancing()) {
        throw new Unavailable(now);
      }
      throw e;
    }
  }

  /**
   * The views cannot be read: the streams are not running (the service stopping, or its streams
   * stopped on an error: {@code /readyz} says so, and an orchestrator restarts it). The API answers
   * 503 with Retry-After; another instance, or this one restarted, answers.
   */
  public static final class Unavailable
      extends org.apache.kafka.streams.errors.InvalidStateStoreException {
    private static final long serialVersionUID = 1L;

    Unavailable(KafkaStreams.State state) {
      super("the views are not available: the streams are " + state);
    }
  }

  public Optional<EventView> event(String eventId) {
    return Optional.ofNullable(events.get().get(eventId.toLowerCase(Locale.ROOT)));
  }

  public List<EventView> events() {
    return all(events.get());
  }

  public Optional<VmView> vm(String vmId) {
    return Optional.ofNullable(vms.get().get(vmId));
  }

  public List<VmView> vms() {
    return all(vms.get());
  }

  /** How many VM views there are (the in-memory store's size: nothing deserialised). */
  public long vmCount() {
    return vms.get().approximateNumEntries();
  }

  /**
   * The views of the VMs these events name, by vmId, each read by its key: an event's page or
   * summary reads its own VMs, not every VM of the fleet.
   */
  public Map<String, VmView> vmsOf(Collection<EventView> of) {
    ReadOnlyKeyValueStore<String, VmView> store = vms.get();
    Map<String, VmView> out = new HashMap<>();
    Set<String> read = new HashSet<>();
    for (EventView e : of) {
      for (String vmId : e.vms().keySet()) {
        if (vmId != null && read.add(vmId)) {
          VmView v = store.get(vmId);
          if (v != null) {
            out.put(vmId, v);
          }
        }
      }
    }
    return out;
  }

  public Optional<RequestView> request(String requestId) {
    return Optional.ofNullable(requests.get().get(requestId));
  }

  /**
   * Up to {@code n} approval requests after the id {@code after} (null: from the first), in id
   * order, that {@code keep} accepts.
   */
  public KeyScans.Scanned<RequestView> requestsAfter(
      String after, Predicate<RequestView> keep, int n) {
    return KeyScans.after(requests.get(), after, keep, n);
  }

  /**
   * Up to {@code n} events after the key {@code after} (null: from the first), in the store's key
   * order (the lower-cased EventId), that {@code keep} accepts: a page reads only as far as it
   * needs.
   */
  public KeyScans.Scanned<EventView> eventsAfter(String after, Predicate<EventView> keep, int n) {
    return keys == null
        ? KeyScans.after(events.get(), after, keep, n)
        : KeyScans.after(keys.eventKeys(), events.get()::get, after, keep, n);
  }

  /**
   * As {@link #eventsAfter}, of the open events only: with the kept keys, their views as kept (no
   * closed one is read, and nothing is parsed).
   */
  public KeyScans.Scanned<EventView> openEventsAfter(
      String after, Predicate<EventView> keep, int n) {
    Predicate<EventView> open = KeyScans.first(EventView::open, keep);
    // The store first, whether it is used or not: while Streams is not running it throws, and the
    // page fails as any other instead of answering what was kept when it stopped.
    ReadOnlyKeyValueStore<String, EventView> store = events.get();
    if (keys == null) {
      return KeyScans.after(store, after, open, n);
    }
    NavigableMap<String, EventView> kept = keys.openEventViews();
    return KeyScans.after(kept.navigableKeySet(), kept::get, after, open, n);
  }

  /** Up to {@code n} VMs after the vmId {@code after}, by vmId, that {@code keep} accepts. */
  public KeyScans.Scanned<VmView> vmsAfter(String after, Predicate<VmView> keep, int n) {
    return keys == null
        ? KeyScans.after(vms.get(), after, keep, n)
        : KeyScans.after(keys.vmKeys(), vms.get()::get, after, keep, n);
  }

  /**
   * The vmIds of the VMs whose part in an open event {@code part} accepts, of the events {@code
   * event} accepts, in the VM view's key order: with the kept keys, from the open events' views as
   * kept (nothing is parsed); a fleet with none in maintenance reads nothing.
   */
  public NavigableSet<String> vmsInOpenEvents(
      Predicate<EventView> event, Predicate<VmEventState> part) {
    ReadOnlyKeyValueStore<String, EventView> store = events.get();
    java.util.Collection<EventView> open =
        keys == null
            ? all(store).stream().filter(EventView::open).toList()
            : keys.openEventViews().values();
    NavigableSet<String> out = new java.util.TreeSet<>(dev.sebridge.fleet.ViewTallies.STORE_ORDER);
    for (EventView e : open) {
      if (e.open() && event.test(e)) {
        e.vms().values().stream()
            .filter(part)
            .map(VmEventState::vmId)
            .filter(java.util.Objects::nonNull)
            .forEach(out::add);
      }
    }
    return out;
  }

  /**
   * Up to {@code n} VMs of {@code vmIds} after {@code after}, read by key, that {@code keep}
   * accepts.
   */
  public KeyScans.Scanned<VmView> vmsOf(
      NavigableSet<String> vmIds, String after, Predicate<VmView> keep, int n) {
    return KeyScans.after(vmIds, vms.get()::get, after, keep, n);
  }

  /**
   * As {@link #vmsAfter}, of the silent agents only: with the kept keys, read from the silent ones'
   * (a fleet with none reads no view).
   */
  public KeyScans.Scanned<VmView> silentVmsAfter(String after, Predicate<VmView> keep, int n) {
    Predicate<VmView> silent = v -> v.silent() && keep.test(v);
    return keys == null
        ? KeyScans.after(vms.get(), after, silent, n)
        : KeyScans.after(keys.silentKeys(), vms.get()::get, after, silent, n);
  }

  /** Whether the agent of this VM is silent (its view read only without the kept keys). */
  public boolean silent(String vmId) {
    if (keys != null) {
      return keys.silent(vmId);
    }
    return vmId != null && vm(vmId).map(VmView::silent).orElse(false);
  }

  /** The rollouts: their headers, put together with their entries when one is read. */
  public RolloutViews rollouts() {
    return rolloutViews;
  }

  /** What the central policies decided for this event, if they did. */
  public Optional<PolicyDecision> decision(String eventId) {
    return Optional.ofNullable(decisions.get().get(eventId.toLowerCase(Locale.ROOT)));
  }

  static <V> List<V> all(ReadOnlyKeyValueStore<String, V> store) {
    List<V> out = new ArrayList<>();
    try (KeyValueIterator<String, V> it = store.all()) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }
}
