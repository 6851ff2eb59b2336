package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A fleet written by hand for one scenario: VMs with a zone, events and what each VM reported. */
final class TestWorld implements World {
  private final Map<String, String> zones = new LinkedHashMap<>();
  private final Map<String, List<String>> resources = new LinkedHashMap<>();
  private final Map<String, Map<String, VmEventState>> reports = new HashMap<>();
  private final Map<String, Instant> heartbeats = new HashMap<>();
  private final List<String> requested = new ArrayList<>();
  private final java.util.Set<String> unknown = new java.util.HashSet<>();
  private final Map<String, dev.sebridge.fleet.agentless.AzureEventStatus> azure = new HashMap<>();

  private final Map<String, String> placedZones = new LinkedHashMap<>();
  private final Map<String, String> armIds = new HashMap<>();
  private boolean acknowledges;

  /**
   * A VM Azure's inventory lists, with no agent, named as its id: placed by name in the events that
   * list it ({@link World#placed}; the resource-group rule is InventoryPlaces').
   */
  TestWorld placedVm(String id, String zone) {
    placedZones.put(id, zone);
    return this;
  }

  /** Azure's inventory lists this VM in this zone (whatever its view says). */
  private final Map<String, String> inventoryZones = new LinkedHashMap<>();

  TestWorld inventoryZone(String id, String zone) {
    inventoryZones.put(id, zone);
    return this;
  }

  @Override
  public boolean inventoryLists(String vmId) {
    return inventoryZones.containsKey(vmId);
  }

  @Override
  public String inventoryAttribute(String vmId, String attribute) {
    return attribute.equals("zone") ? inventoryZones.get(vmId) : null;
  }

  /** Azure's central delivery gave the event's ARM id. */
  TestWorld armId(String eventId, String resourceId) {
    armIds.put(eventId, resourceId);
    return this;
  }

  /** fleet.acknowledge.enabled. */
  TestWorld acknowledging() {
    acknowledges = true;
    return this;
  }

  @Override
  public String placed(String eventId, String name) {
    return placedZones.containsKey(name) ? name : null;
  }

  @Override
  public String scheduledEventResource(String eventId) {
    return armIds.get(eventId);
  }

  @Override
  public dev.sebridge.fleet.agentless.AzureEventStatus azureStatus(String eventId) {
    return azure.get(eventId);
  }

  @Override
  public boolean acknowledges() {
    return acknowledges;
  }

  /** Azure's central delivery says the event is in this status (fleet.central-events). */
  TestWorld azure(String eventId, dev.sebridge.fleet.agentless.AzureEventStatus status) {
    azure.put(eventId, status);
    return this;
  }

  @Override
  public boolean releasedByAzure(String eventId) {
    var s = azure.get(eventId);
    return s == dev.sebridge.fleet.agentless.AzureEventStatus.STARTED
        || s == dev.sebridge.fleet.agentless.AzureEventStatus.COMPLETED;
  }

  @Override
  public boolean startedByAzure(String eventId) {
    return azure.get(eventId) == dev.sebridge.fleet.agentless.AzureEventStatus.STARTED;
  }

  /** A VM with an agent, named as its id. */
  TestWorld vm(String id, String zone) {
    zones.put(id, zone);
    return this;
  }

  /** An event listing these VM names (IMDS Resources). */
  TestWorld event(String eventId, String... names) {
    resources.put(eventId, List.of(names));
    reports.putIfAbsent(eventId, new LinkedHashMap<>());
    return this;
  }

  /** A VM's agent reports the event in this status (scheduled, started, completed ...). */
  TestWorld report(String eventId, String vmId, String status, Instant since) {
    reports
        .computeIfAbsent(eventId, e -> new LinkedHashMap<>())
        .put(vmId, new VmEventState(vmId, vmId, zones.get(vmId), null, status, null, since, null));
    return this;
  }

  /** A VM's agent reports the event with this blank or null name (a buggy or hostile agent). */
  TestWorld namelessReport(String eventId, String vmId, String name, String status, Instant since) {
    reports
        .computeIfAbsent(eventId, e -> new LinkedHashMap<>())
        .put(vmId, new VmEventState(vmId, name, zones.get(vmId), null, status, null, since, null));
    return this;
  }

  /** The fleet closed the VM's part as vanished: nothing heard from it for fleet.vm-retention. */
  TestWorld vanished(String eventId, String vmId, Instant since) {
    reports
        .computeIfAbsent(eventId, e -> new LinkedHashMap<>())
        .put(
            vmId,
            new VmEventState(
                vmId, vmId, zones.get(vmId), null, "inferred", "vanished", since, null));
    return this;
  }

  /** A vmId the inventory does not list (the fleet has one), reporting as {@code name}. */
  TestWorld unknownReport(String eventId, String vmId, String name, String status, Instant since) {
    unknown.add(vmId);
    reports
        .computeIfAbsent(eventId, e -> new LinkedHashMap<>())
        .put(vmId, new VmEventState(vmId, name, "9", null, status, null, since, null));
    return this;
  }

  @Override
  public boolean known(String vmId) {
    return !unknown.contains(vmId);
  }

  /** Azure's inventory no longer lists this VM (deleted by a scale-in): unknown from now. */
  TestWorld dropped(String vmId) {
    unknown.add(vmId);
    return this;
  }

  private final java.util.Set<String> silent = new java.util.HashSet<>();

  /** The VM's agent is silent: out of its group's size. */
  TestWorld silent(String vmId) {
    silent.add(vmId);
    return this;
  }

  /** The VM's agent is heard from again. */
  TestWorld heard(String vmId) {
    silent.remove(vmId);
    return this;
  }

  /** Azure's inventory no longer lists this VM (a VM without an agent, deleted). */
  TestWorld unlisted(String vmId) {
    inventoryZones.remove(vmId);
    return this;
  }

  @Override
  public boolean inGroupSize(String vmId) {
    return known(vmId) && !silent.contains(vmId);
  }

  TestWorld heartbeat(String vmId, Instant at) {
    heartbeats.put(vmId, at);
    return this;
  }

  /** The requests view shows commands sent for the event. */
  TestWorld requested(String eventId) {
    requested.add(eventId);
    return this;
  }

  @Override
  public Map<String, VmEventState> eventVms(String eventId) {
    return reports.getOrDefault(eventId, Map.of());
  }

  @Override
  public List<String> resources(String eventId) {
    return resources.getOrDefault(eventId, List.of());
  }

  @Override
  public boolean open(String eventId) {
    // as the view: by its parts, or, with none (no agent reported it), as Azure says
    var s = azure.get(eventId);
    return eventVms(eventId).values().stream().anyMatch(v -> !v.closed())
        || (eventVms(eventId).isEmpty() && s != null && !s.over());
  }

  @Override
  public boolean viewed(String eventId) {
    return resources.containsKey(eventId)
        || reports.containsKey(eventId)
        || azure.containsKey(eventId);
  }

  @Override
  public Collection<String> openEvents() {
    List<String> out = new ArrayList<>();
    resources.keySet().stream().filter(this::open).forEach(out::add);
    return out;
  }

  @Override
  public Collection<String> requestedEvents() {
    return requested;
  }

  private final Map<String, Instant> notBefore = new HashMap<>();

  /** The event's NotBefore. */
  TestWorld notBefore(String eventId, Instant at) {
    notBefore.put(eventId, at);
    return this;
  }

  private final Map<String, String> types = new HashMap<>();

  /** The event's type (Reboot when not given). */
  TestWorld type(String eventId, String type) {
    types.put(eventId, type);
    return this;
  }

  @Override
  public String eventType(String eventId) {
    return types.getOrDefault(eventId, "Reboot");
  }

  /** The event started: its NotBefore is empty (IMDS writes ""). */
  TestWorld noNotBefore(String eventId) {
    notBefore.remove(eventId);
    return this;
  }

  @Override
  public Optional<Instant> notBefore(String eventId) {
    return Optional.ofNullable(notBefore.get(eventId));
  }

  @Override
  public Optional<Instant> lastHeartbeat(String vmId) {
    return Optional.ofNullable(heartbeats.get(vmId));
  }

  @Override
  public String attribute(String vmId, String attribute) {
    return attribute.equals("zone") ? zones.getOrDefault(vmId, placedZones.get(vmId)) : null;
  }

  @Override
  public int groupSize(List<String> groupBy, String group) {
    return (int)
        zones.keySet().stream()
            .filter(vm -> ListedVms.group(vm, a -> attribute(vm, a), groupBy).equals(group))
            .count();
  }

  private final Map<String, Result> unaccepted = new HashMap<>();

  /** Every request's result for this VM key (a vmId, or name:<name>) did not accept. */
  TestWorld unaccepted(String vmKey, String outcome, String reason) {
    unaccepted.put(vmKey, new Result(outcome, reason));
    return this;
  }

  private List<String> refusedCounted = List.of();

  /** What every refused request counted. */
  TestWorld everyRefusedRequestCounted(String... names) {
    refusedCounted = List.of(names);
    return this;
  }

  @Override
  public List<String> refusedCounted(String requestId) {
    return refusedCounted;
  }

  /** Every request's result for this VM key did not accept, with the agent's reason code. */
  TestWorld unaccepted(String vmKey, String outcome, String reason, String reasonCode) {
    unaccepted.put(vmKey, new Result(outcome, reason, reasonCode));
    return this;
  }

  @Override
  public Optional<Result> unaccepted(String requestId, String vmId) {
    return Optional.ofNullable(unaccepted.get(vmId));
  }
}
