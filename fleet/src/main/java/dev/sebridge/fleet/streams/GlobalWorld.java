package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.World;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The world a rollout sees: the global views of this instance, through the {@link ViewIndex} kept
 * change by change: within one step ({@link #newStep}) nothing fleet-sized is read and no view is
 * deserialised from a store (the stores hold JSON), but a closed event's view the index keeps
 * packed, read back the first step that asks for it. Whether a request was audited is read from its
 * store by key.
 */
final class GlobalWorld implements World {
  private final ViewIndex.Stores stores;
  private final ViewIndex index;
  private final boolean acknowledges;

  GlobalWorld(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests,
      ViewIndex index) {
    this(new ViewIndex.Stores(vms, events, requests), index, false);
  }

  /**
   * @param acknowledges whether acknowledgements go to Azure's Maintenance API ({@code
   *     fleet.acknowledge.enabled})
   */
  GlobalWorld(ViewIndex.Stores stores, ViewIndex index, boolean acknowledges) {
    this.stores = stores;
    this.index = index;
    this.acknowledges = acknowledges;
  }

  // The event looked up last: a step asks several things of one event in a row (its VMs, its
  // names, whether it is open...), each a look-up among every event of the fleet otherwise. The
  // index does not change within a step; a new step forgets it.
  private String lastId;
  private EventView lastView;

  /** Brings the index up to date with the views: the views as of this step. */
  void newStep(Instant now) {
    lastId = null;
    lastView = null;
    index.refresh(stores, now);
  }

  private EventView view(String eventId) {
    if (eventId != null && eventId.equals(lastId)) {
      return lastView;
    }
    EventView e = index.contents().event(eventId);
    lastId = eventId;
    lastView = e;
    return e;
  }

  Optional<EventView> event(String eventId) {
    return Optional.ofNullable(view(eventId));
  }

  /** The open events' views, in the store's key order. */
  Collection<EventView> openEventViews() {
    return index.contents().openEvents();
  }

  // The three below are asked tens of thousands of times a step: no Optional in between.
  @Override
  public Map<String, VmEventState> eventVms(String eventId) {
    EventView e = view(eventId);
    return e == null ? Map.of() : e.vms();
  }

  /**
   * The names the agents' reports list, and those Azure's central delivery lists: a report can
   * narrow the view's list (an unknown vmId's, until a known VM reports), Azure's cannot be.
   */
  @Override
  public List<String> resources(String eventId) {
    EventView e = view(eventId);
    return e == null ? List.of() : e.listedNames();
  }

  @Override
  public boolean releasedByAzure(String eventId) {
    EventView e = view(eventId);
    return index.contents().releasedByAzure(e);
  }

  @Override
  public boolean startedByAzure(String eventId) {
    EventView e = view(eventId);
    return e != null
        && e.central() != null
        && e.central().status() == dev.sebridge.fleet.agentless.AzureEventStatus.STARTED;
  }

  @Override
  public dev.sebridge.fleet.agentless.AzureEventStatus azureStatus(String eventId) {
    EventView e = view(eventId);
    return e == null || e.central() == null ? null : e.central().status();
  }

  @Override
  public String placed(String eventId, String name) {
    return name == null || !index.inventoried()
        ? null
        : index
            .contents()
            .inventory()
            .placed(
                name,
                scheduledEventResource(eventId),
                resources(eventId),
                eventVms(eventId).values(),
                this::known);
  }

  @Override
  public boolean acknowledges() {
    return acknowledges;
  }

  @Override
  public String scheduledEventResource(String eventId) {
    EventView e = view(eventId);
    return e == null || e.central() == null ? null : e.central().resourceId();
  }

  @Override
  public boolean open(String eventId) {
    EventView e = view(eventId);
    return e != null && e.open();
  }

  @Override
  public Collection<String> openEvents() {
    List<String> out = new ArrayList<>();
    index.contents().openEvents().forEach(e -> out.add(e.eventId()));
    return out;
  }

  @Override
  public Collection<String> releasedOpenEvents() {
    List<String> out = new ArrayList<>();
    index.contents().releasedOpenEvents().forEach(e -> out.add(e.eventId()));
    return out;
  }

  @Override
  public String eventType(String eventId) {
    EventView e = view(eventId);
    return e == null ? null : e.eventType();
  }

  @Override
  public boolean viewed(String eventId) {
    return view(eventId) != null;
  }

  @Override
  public boolean azureListsFleetVm(String eventId) {
    return index.contents().azureListsFleetVm(view(eventId));
  }

  @Override
  public Collection<String> dueOpenEvents(Instant now) {
    List<String> out = new ArrayList<>();
    index.contents().dueOpenEvents(now).forEach(e -> out.add(e.eventId()));
    return out;
  }

  @Override
  public Collection<String> requestedEvents() {
    return index.contents().requestedEvents();
  }

  @Override
  public Optional<Instant> notBefore(String eventId) {
    return event(eventId).map(EventView::notBefore);
  }

  @Override
  public Optional<Instant> lastHeartbeat(String vmId) {
    return Optional.ofNullable(index.contents().vm(vmId)).map(VmFacts::lastHeartbeatAt);
  }

  @Override
  public String attribute(String vmId, String attribute) {
    VmFacts v = index.contents().vm(vmId);
    if (v == null || v.unknown()) {
      // A VM without an agent, or whose view the inventory has not stamped (its agent's own
      // claims): where Azure's inventory puts it, if it lists it.
      dev.sebridge.fleet.inventory.InventoryPlaces.Place p = index.contents().place(vmId);
      if (p != null) {
        return p.attribute(attribute);
      }
    }
    return v == null ? null : v.attribute(attribute);
  }

  @Override
  public boolean inventoryLists(String vmId) {
    return index.contents().place(vmId) != null;
  }

  @Override
  public String inventoryAttribute(String vmId, String attribute) {
    dev.sebridge.fleet.inventory.InventoryPlaces.Place p = index.contents().place(vmId);
    return p == null ? null : p.attribute(attribute);
  }

  /** Whether the VM's agent is live: the fleet has its view and it is not silent. */
  boolean live(String vmId) {
    VmFacts v = vmId == null ? null : index.contents().vm(vmId);
    return v != null && !v.silent();
  }

  @Override
  public boolean inGroupSize(String vmId) {
    VmFacts v = vmId == null ? null : index.contents().vm(vmId);
    return v != null && !v.silent() && !v.unknown();
  }

  @Override
  public String name(String vmId) {
    // Read from the store by key: asked only for an operator's approval the views do not show yet.
    try {
      VmView v = vmId == null ? null : stores.vms().get(vmId);
      return v == null ? null : v.name();
    } catch (org.apache.kafka.common.errors.SerializationException unreadable) {
      return null; // (no name: nothing claimed, as for a VM without a view here)
    }
  }

  @Override
  public boolean known(String vmId) {
    return index.contents().known(vmId);
  }

  @Override
  public int groupSize(List<String> groupBy, String group) {
    return index.contents().groupSize(groupBy, group);
  }

  /** Whether the requests view has this request (it was audited, accepted or refused). */
  boolean audited(String requestId) {
    return requestId != null && stores.requests().get(requestId) != null;
  }

  @Override
  public List<String> refusedCounted(String requestId) {
    return requestId == null ? List.of() : index.contents().unaccepted(requestId).counted();
  }

  @Override
  public Optional<Result> unaccepted(String requestId, String vmId) {
    return requestId == null || vmId == null
        ? Optional.empty()
        : Optional.ofNullable(index.contents().unaccepted(requestId).unaccepted().get(vmId));
  }
}
