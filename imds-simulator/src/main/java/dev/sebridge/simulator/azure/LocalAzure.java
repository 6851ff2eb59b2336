package dev.sebridge.simulator.azure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Azure's central side of one {@link ImdsSimulator}, driven by its event book: Resource Graph lists
 * every simulated VM (the inventory) and, in {@code maintenanceresources}, each event Event Grid
 * told of, in its newest status; the Maintenance API's acknowledge starts an event for every VM it
 * lists (as an approval through IMDS does); and Event Grid's deliveries (CloudEvents schema) tell
 * of each event that lists a VM with central delivery on, Scheduled, Started and then Completed, as
 * the book moves it (an event the book drops is told as Completed: it does not say whether it was
 * canceled). The deliveries are handed to the caller ({@link #deliveries}), which writes them where
 * the subscription would (a Kafka topic). With {@link Quirks}, they come as Azure's may: each twice
 * (the same Event Grid id), a round's in reverse order, and NotBefore with a wrong weekday (as
 * Microsoft's own example has it).
 */
public final class LocalAzure implements AutoCloseable {
  /** The subscription every simulated VM is in (ResourceGraphEndpoint's rows). */
  public static final String SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";

  private static final String API_VERSION = "2020-07-01";

  /** How many rows of events told over {@code maintenanceresources} keeps (the newest). */
  static final int OVER_KEPT = 1000;

  /**
   * How Event Grid's deliveries misbehave, as Azure's may.
   *
   * @param duplicates each delivery twice, with the same id
   * @param reordered the deliveries of one round in reverse order
   * @param wrongWeekday NotBefore's weekday one day off ({@code Mon, 19 Sep 2025}, a Friday)
   * @param otherShapes every other delivery in Event Grid's own schema, with the event type {@code
   *     Microsoft.Maintenance/scheduledevents/write} (both appear on Microsoft's pages)
   */
  public record Quirks(
      boolean duplicates, boolean reordered, boolean wrongWeekday, boolean otherShapes) {
    public static final Quirks NONE = new Quirks(false, false, false, false);
    public static final Quirks ALL = new Quirks(true, true, true, true);
  }

  private final ImdsSimulator sim;
  private final ResourceGraphEndpoint graph;
  private final MaintenanceEndpoint maintenance;
  private final Predicate<String> central;
  private final Quirks quirks;
  private final java.util.ArrayDeque<String> over = new java.util.ArrayDeque<>();
  private final Map<String, String> resourceOf = new HashMap<>();
  // By EventId: the last status delivered, and the event as IMDS last showed it.
  private final Map<String, String> delivered = new HashMap<>();
  private final Map<String, ObjectNode> seen = new HashMap<>();
  private int deliveryNumber;

  /**
   * Starts Resource Graph and the Maintenance API for the simulator's VMs.
   *
   * @param central whether a VM (by name) has Azure's central delivery turned on
   */
  public LocalAzure(ImdsSimulator sim, Predicate<String> central) throws IOException {
    this(sim, central, Quirks.NONE);
  }

  /**
   * Starts Resource Graph and the Maintenance API for the simulator's VMs; Event Grid's deliveries
   * come with these quirks.
   */
  public LocalAzure(ImdsSimulator sim, Predicate<String> central, Quirks quirks)
      throws IOException {
    this.sim = sim;
    this.central = central;
    this.quirks = quirks;
    this.graph = new ResourceGraphEndpoint();
    for (SimVm vm : sim.vms()) {
      graph.add(
          ResourceGraphEndpoint.vm(vm.vmId(), vm.name(), vm.zone(), vm.vmScaleSetName(), Map.of()),
          false);
    }
    this.maintenance = new MaintenanceEndpoint();
    maintenance.onStart(sim::startEvent);
  }

  public ResourceGraphEndpoint resourceGraph() {
    return graph;
  }

  public MaintenanceEndpoint maintenance() {
    return maintenance;
  }

  /**
   * The deliveries Event Grid would make now: one per change of each event that lists a VM with
   * central delivery, since the last call. An event's ARM id is that of its first VM's scale set,
   * or of that VM when it is in none; the Maintenance API knows it from its first delivery and
   * forgets it once it is over. The caller owns what it is handed: they are not handed again.
   */
  public synchronized List<ObjectNode> deliveries() {
    List<ObjectNode> out = new ArrayList<>();
    Set<String> present = new java.util.HashSet<>();
    for (JsonNode e : sim.document(API_VERSION).path("Events")) {
      String id = e.path("EventId").asText();
      present.add(id);
      List<String> vms = new ArrayList<>();
      e.path("Resources").forEach(r -> vms.add(r.asText()));
      if (vms.isEmpty() || vms.stream().noneMatch(central)) {
        continue;
      }
      seen.put(id, (ObjectNode) e.deepCopy());
      deliver(id, e.path("EventStatus").asText(), out);
    }
    for (String id : new ArrayList<>(seen.keySet())) {
      if (!present.contains(id)) {
        // Gone from IMDS: over. Event Grid told of its start too, if this was not called while it
        // ran. (The book does not say whether an event it dropped was canceled: told as Completed.)
        deliver(id, "Started", out);
        deliver(id, "Completed", out);
        seen.remove(id);
        delivered.remove(id);
        String resourceId = resourceOf.remove(id);
        maintenance.forget(resourceId);
        over.add(resourceId);
      }
    }
    // Resource Graph keeps the events told over a while: the newest OVER_KEPT of them.
    while (over.size() > OVER_KEPT) {
      graph.removeMaintenance(over.remove());
    }
    if (quirks.reordered()) {
      java.util.Collections.reverse(out);
    }
    if (quirks.duplicates()) {
      List<ObjectNode> twice = new ArrayList<>(2 * out.size());
      out.forEach(d -> twice.addAll(List.of(d, d.deepCopy())));
      return twice;
    }
    return out;
  }

  private void deliver(String eventId, String status, List<ObjectNode> out) {
    if (status.equals(delivered.get(eventId))) {
      return;
    }
    delivered.put(eventId, status);
    ObjectNode p = seen.get(eventId).deepCopy();
    p.put("EventStatus", status);
    p.put("ResourceType", "VirtualMachine");
    String resourceId =
        resourceOf.computeIfAbsent(
            eventId, id -> resourceId(p.path("Resources").path(0).asText(), id));
    maintenance.schedule(resourceId);
    ObjectNode row = p.objectNode();
    row.put("id", resourceId);
    row.put("name", eventId);
    row.put("type", "microsoft.maintenance/scheduledevents");
    row.put("location", "westeurope");
    row.set("properties", p.deepCopy());
    graph.putMaintenance(row);
    if (quirks.wrongWeekday()) {
      p.put("NotBefore", wrongWeekday(p.path("NotBefore").asText()));
    }
    String deliveryId = "delivery-" + (++deliveryNumber);
    out.add(
        quirks.otherShapes() && deliveryNumber % 2 == 0
            ? CentralDeliveries.eventGridEvent(
                deliveryId, resourceId, p, "Microsoft.Maintenance/scheduledevents/write")
            : CentralDeliveries.cloudEvent(deliveryId, resourceId, p));
  }

  /** The scheduled event's ARM id: on the VM's scale set, or on the VM when it is in none. */
  private String resourceId(String vmName, String eventId) {
    SimVm vm =
        sim.vms().stream().filter(v -> v.name().equalsIgnoreCase(vmName)).findFirst().orElse(null);
    if (vm == null || vm.vmScaleSetName() == null || vm.vmScaleSetName().isBlank()) {
      return MaintenanceEndpoint.vmEventId(vmName, eventId);
    }
    return "/subscriptions/"
        + SUBSCRIPTION
        + "/resourceGroups/fleet-rg/providers/Microsoft.Compute/virtualMachineScaleSets/"
        + vm.vmScaleSetName()
        + "/providers/Microsoft.Maintenance/scheduledevents/"
        + eventId;
  }

  /** {@code Fri, 19 Sep 2025 ...} as {@code Sat, 19 Sep 2025 ...}: the date right, its day not. */
  static String wrongWeekday(String rfc1123) {
    List<String> days = List.of("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun");
    int i = rfc1123.length() >= 3 ? days.indexOf(rfc1123.substring(0, 3)) : -1;
    return i < 0 ? rfc1123 : days.get((i + 1) % 7) + rfc1123.substring(3);
  }

  @Override
  public void close() {
    graph.close();
    maintenance.close();
  }
}
