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
 * deserialised (the stores hold JSON). Requests are read from their store by key.
 */
final class GlobalWorld implements World {
  private final ViewIndex.Stores stores;
  private final ViewIndex index;

  GlobalWorld(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests,
      ViewIndex index) {
    this.stores = new ViewIndex.Stores(vms, events, requests);
    this.index = index;
  }

  /** Brings the index up to date with the views: the views as of this step. */
  void newStep(Instant now) {
    index.refresh(stores, now);
  }

  Optional<EventView> event(String eventId) {
    return Optional.ofNullable(index.event(eventId));
  }

  /** The open events' views, in the store's key order. */
  Collection<EventView> openEventViews() {
    return index.openEvents();
  }

  @Override
  public Map<String, VmEventState> eventVms(String eventId) {
    return event(eventId).map(EventView::vms).orElse(Map.of());
  }

  @Override
  public List<String> resources(String eventId) {
    return event(eventId).map(EventView::resources).orElse(List.of());
  }

  @Override
  public boolean open(String eventId) {
    return event(eventId).map(EventView::open).orElse(false);
  }

  @Override
  public Collection<String> openEvents() {
    List<String> out = new ArrayList<>();
    index.openEvents().forEach(e -> out.add(e.eventId()));
    return out;
  }

  @Override
  public Collection<String> releasedOpenEvents() {
    List<String> out = new ArrayList<>();
    index.releasedOpenEvents().forEach(e -> out.add(e.eventId()));
    return out;
  }

  @Override
  public Collection<String> requestedEvents() {
    return List.copyOf(index.requestedEvents());
  }

  @Override
  public Optional<Instant> notBefore(String eventId) {
    return event(eventId).map(EventView::notBefore);
  }

  @Override
  public Optional<Instant> lastHeartbeat(String vmId) {
    return Optional.ofNullable(index.vm(vmId)).map(VmFacts::lastHeartbeatAt);
  }

  @Override
  public String attribute(String vmId, String attribute) {
    VmFacts v = index.vm(vmId);
    return v == null ? null : v.attribute(attribute);
  }

  @Override
  public int groupSize(List<String> groupBy, String group) {
    return index.groupSize(groupBy, group);
  }

  /** Whether the requests view has this request (it was audited, accepted or refused). */
  boolean audited(String requestId) {
    return requestId != null && stores.requests().get(requestId) != null;
  }

  @Override
  public Optional<Result> result(String requestId, String vmId) {
    RequestView r = stores.requests().get(requestId);
    if (r == null || !r.vms().containsKey(vmId) || r.vms().get(vmId).outcome() == null) {
      return Optional.empty();
    }
    RequestView.VmResult v = r.vms().get(vmId);
    return Optional.of(
        new Result(
            v.outcome(), (v.reasonCode() == null ? "" : v.reasonCode() + ": ") + v.reason()));
  }
}
