package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.World;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The world a rollout sees: the global views of this instance. Within one step ({@link #newStep})
 * each VM and event view is read from its store once, and a group's size is counted in one pass
 * over the VMs for every group of that grouping: a step over 10,000 VMs reads each view once
 * instead of once per question (the stores hold JSON; every read deserialises it).
 */
final class GlobalWorld implements World {
  private final ReadOnlyKeyValueStore<String, VmView> vms;
  private final ReadOnlyKeyValueStore<String, EventView> events;
  private final ReadOnlyKeyValueStore<String, RequestView> requests;
  private final Map<String, Optional<VmView>> vmsRead = new HashMap<>();
  private final Map<String, Optional<EventView>> eventsRead = new HashMap<>();
  private final Map<List<String>, Map<String, Integer>> sizes = new HashMap<>();

  GlobalWorld(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests) {
    this.vms = vms;
    this.events = events;
    this.requests = requests;
  }

  /** Forgets what the last step read: the views are read afresh from here. */
  void newStep() {
    vmsRead.clear();
    eventsRead.clear();
    sizes.clear();
  }

  Optional<EventView> event(String eventId) {
    return eventsRead.computeIfAbsent(
        eventId.toLowerCase(Locale.ROOT), k -> Optional.ofNullable(events.get(k)));
  }

  private VmView vm(String vmId) {
    return vmsRead.computeIfAbsent(vmId, k -> Optional.ofNullable(vms.get(k))).orElse(null);
  }

  KeyValueIterator<String, EventView> allEvents() {
    return events.all();
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
    try (KeyValueIterator<String, EventView> it = events.all()) {
      it.forEachRemaining(
          kv -> {
            if (kv.value != null && kv.value.open()) {
              out.add(kv.value.eventId());
            }
          });
    }
    return out;
  }

  @Override
  public Collection<String> requestedEvents() {
    List<String> out = new ArrayList<>();
    try (KeyValueIterator<String, RequestView> it = requests.all()) {
      it.forEachRemaining(
          kv -> {
            if (kv.value != null
                && kv.value.commandsSentAt() != null
                && kv.value.request() != null
                && kv.value.request().eventId() != null
                && kv.value.request().refusal() == null) {
              out.add(kv.value.request().eventId());
            }
          });
    }
    return out;
  }

  @Override
  public Optional<Instant> notBefore(String eventId) {
    return event(eventId).map(EventView::notBefore);
  }

  @Override
  public Optional<Instant> lastHeartbeat(String vmId) {
    return Optional.ofNullable(vm(vmId)).map(VmView::lastHeartbeatAt);
  }

  @Override
  public String attribute(String vmId, String attribute) {
    VmView v = vm(vmId);
    return v == null ? null : attribute(v, attribute);
  }

  private static String attribute(VmView v, String attribute) {
    return switch (attribute) {
      case "zone" -> v.zone();
      case "scaleSet" -> v.scaleSet();
      case "resourceGroup" -> v.resourceGroup();
      case "location" -> v.location();
      default -> null;
    };
  }

  @Override
  public int groupSize(List<String> groupBy, String group) {
    return sizes.computeIfAbsent(List.copyOf(groupBy), this::countGroups).getOrDefault(group, 0);
  }

  /**
   * Live VMs (not silent) by group of this grouping, in one pass: a scale-set instance deleted
   * months ago is not part of its group any more.
   */
  private Map<String, Integer> countGroups(List<String> groupBy) {
    Map<String, Integer> counts = new HashMap<>();
    try (KeyValueIterator<String, VmView> it = vms.all()) {
      while (it.hasNext()) {
        VmView v = it.next().value;
        if (v == null) {
          continue;
        }
        vmsRead.put(v.vmId(), Optional.of(v));
        if (!v.silent()) {
          counts.merge(World.group(this, groupBy, v.vmId()), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  /** Whether the requests view has this request (it was audited, accepted or refused). */
  boolean audited(String requestId) {
    return requestId != null && requests.get(requestId) != null;
  }

  @Override
  public Optional<Result> result(String requestId, String vmId) {
    RequestView r = requests.get(requestId);
    if (r == null || !r.vms().containsKey(vmId) || r.vms().get(vmId).outcome() == null) {
      return Optional.empty();
    }
    RequestView.VmResult v = r.vms().get(vmId);
    return Optional.of(
        new Result(
            v.outcome(), (v.reasonCode() == null ? "" : v.reasonCode() + ": ") + v.reason()));
  }
}
