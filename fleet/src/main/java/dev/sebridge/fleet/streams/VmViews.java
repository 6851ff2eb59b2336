package dev.sebridge.fleet.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.fleet.model.FleetEnvelope;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmView;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** How one envelope changes a VM's view; and when a VM counts as silent. Pure functions. */
final class VmViews {
  /** Heartbeat interval assumed until a heartbeat says (the agent's default). */
  static final int DEFAULT_INTERVAL_SECONDS = 300;

  private VmViews() {}

  static VmView apply(VmView old, FleetEnvelope e, Instant receivedAt) {
    return apply(old, e, receivedAt, null);
  }

  /**
   * @param listedName the VM's name as Azure's inventory lists it, or null ({@link
   *     EventViews#affects})
   */
  static VmView apply(VmView old, FleetEnvelope e, Instant receivedAt, String listedName) {
    JsonNode vm = e.vm();
    Set<String> open = new TreeSet<>(old.openEvents());
    if (e.isTransition() && EventViews.affects(e, listedName)) {
      switch (e.transition()) {
        case "scheduled", "started", "updated" -> open.add(e.eventKey());
        case "completed", "canceled" -> open.remove(e.eventKey());
        default -> {
          // a transition a later minor version adds: the event's status decides
          String status = e.event().path("EventStatus").asText("");
          if (status.equals("Scheduled") || status.equals("Started")) {
            open.add(e.eventKey());
          }
        }
      }
    } else if (e.isTransition() && EventViews.removal(e.transition())) {
      // Over for its agent, though the event does not list its name now: not open for it either
      // (VmEventUpdate.ifPart).
      open.remove(e.eventKey());
    }
    Instant lastHeartbeat = old.lastHeartbeatAt();
    Integer interval = old.heartbeatIntervalSeconds();
    Map<String, Long> polls = old.polls();
    if (e.isHeartbeat()) {
      lastHeartbeat = later(lastHeartbeat, e.time());
      interval = e.data().path("intervalSeconds").asInt(DEFAULT_INTERVAL_SECONDS);
      Map<String, Long> p = new TreeMap<>();
      JsonNode pollsNode = e.data().path("polls");
      p.put("total", pollsNode.path("total").asLong());
      p.put("documents", pollsNode.path("documents").asLong());
      pollsNode
          .path("failures")
          .fields()
          .forEachRemaining(f -> p.put("failed." + f.getKey(), f.getValue().asLong()));
      polls = p;
    }
    return new VmView(
        e.vmId(),
        text(vm, "name", old.name()),
        text(vm, "resourceId", old.resourceId()),
        text(vm, "subscriptionId", old.subscriptionId()),
        text(vm, "resourceGroupName", old.resourceGroup()),
        text(vm, "location", old.location()),
        text(vm, "zone", old.zone()),
        text(vm, "vmScaleSetName", old.scaleSet()),
        text(e.data().path("agent"), "version", old.agentVersion()),
        later(old.lastEnvelopeAt(), e.time()),
        receivedAt,
        lastHeartbeat,
        interval,
        polls,
        false,
        open,
        old.inventory());
  }

  /**
   * The view as Azure's inventory has the VM: its name and group attributes are the inventory's (an
   * agent does not choose its group, nor which VM of an event it is), or it is marked unknown (no
   * inventory record for its vmId in the inventory's spelling).
   */
  static VmView withInventory(VmView v, InventoryVm i) {
    if (i == null) {
      return v.inventory() == InventoryState.UNKNOWN
          ? v
          : copy(v, v.silent(), InventoryState.UNKNOWN);
    }
    return new VmView(
        v.vmId(),
        i.name() != null ? i.name() : v.name(),
        i.resourceId(),
        i.subscriptionId(),
        i.resourceGroup(),
        i.location(),
        i.zone(),
        i.scaleSet(),
        v.agentVersion(),
        v.lastEnvelopeAt(),
        v.lastSeenAt(),
        v.lastHeartbeatAt(),
        v.heartbeatIntervalSeconds(),
        v.polls(),
        v.silent(),
        v.openEvents(),
        InventoryState.KNOWN);
  }

  /** True when nothing came for {@code intervals} heartbeat intervals. */
  static boolean silent(VmView v, Instant now, int intervals) {
    if (v.lastSeenAt() == null) {
      return false;
    }
    int interval =
        v.heartbeatIntervalSeconds() == null
            ? DEFAULT_INTERVAL_SECONDS
            : v.heartbeatIntervalSeconds();
    return Duration.between(v.lastSeenAt(), now)
            .compareTo(Duration.ofSeconds((long) interval * intervals))
        > 0;
  }

  static VmView withSilent(VmView v, boolean silent) {
    return copy(v, silent, v.inventory());
  }

  /** {@code v} with its silence and inventory state set. */
  private static VmView copy(VmView v, boolean silent, InventoryState inventory) {
    return new VmView(
        v.vmId(),
        v.name(),
        v.resourceId(),
        v.subscriptionId(),
        v.resourceGroup(),
        v.location(),
        v.zone(),
        v.scaleSet(),
        v.agentVersion(),
        v.lastEnvelopeAt(),
        v.lastSeenAt(),
        v.lastHeartbeatAt(),
        v.heartbeatIntervalSeconds(),
        v.polls(),
        silent,
        v.openEvents(),
        inventory);
  }

  private static String text(JsonNode n, String field, String fallback) {
    JsonNode v = n.path(field);
    return v.isTextual() && !v.asText().isBlank() ? v.asText() : fallback;
  }

  private static Instant later(Instant a, Instant b) {
    return a == null || (b != null && b.isAfter(a)) ? b : a;
  }
}
