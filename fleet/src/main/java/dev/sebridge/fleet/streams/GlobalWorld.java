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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** The world a rollout sees: the global views of this instance. */
final class GlobalWorld implements World {
  private final ReadOnlyKeyValueStore<String, VmView> vms;
  private final ReadOnlyKeyValueStore<String, EventView> events;
  private final ReadOnlyKeyValueStore<String, RequestView> requests;

  GlobalWorld(
      ReadOnlyKeyValueStore<String, VmView> vms,
      ReadOnlyKeyValueStore<String, EventView> events,
      ReadOnlyKeyValueStore<String, RequestView> requests) {
    this.vms = vms;
    this.events = events;
    this.requests = requests;
  }

  Optional<EventView> event(String eventId) {
    return Optional.ofNullable(events.get(eventId.toLowerCase(Locale.ROOT)));
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
    return Optional.ofNullable(vms.get(vmId)).map(VmView::lastHeartbeatAt);
  }

  @Override
  public String attribute(String vmId, String attribute) {
    VmView v = vms.get(vmId);
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
    // Live VMs only: a scale-set instance deleted months ago is not part of its group any more.
    int n = 0;
    try (KeyValueIterator<String, VmView> it = vms.all()) {
      while (it.hasNext()) {
        VmView v = it.next().value;
        if (v != null
            && !v.silent()
            && (groupBy.isEmpty() || group.equals(World.group(this, groupBy, v.vmId())))) {
          n++;
        }
      }
    }
    return n;
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
