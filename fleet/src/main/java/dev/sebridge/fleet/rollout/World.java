package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What a rollout reads of the fleet: the views, as of now. */
public interface World {
  /** The event's VMs as the fleet sees them, by vmId (empty when unknown). */
  Map<String, VmEventState> eventVms(String eventId);

  /**
   * The VM names the event lists (IMDS {@code Resources}): IMDS releases an approved event for
   * every one of them, reported or not. Empty when the event is unknown.
   */
  List<String> resources(String eventId);

  /** Whether the fleet sees the event open (false once it is closed or gone from the view). */
  boolean open(String eventId);

  /** The ids of every open event. */
  Collection<String> openEvents();

  /**
   * Whether the views hold the event at all, open or closed: an event they do not hold was
   * forgotten after its retention, or this instance's views have not caught up with it yet (the
   * rollouts task moved to an instance whose global views are behind).
   */
  default boolean viewed(String eventId) {
    return open(eventId)
        || !eventVms(eventId).isEmpty()
        || !resources(eventId).isEmpty()
        || eventType(eventId) != null;
  }

  /**
   * Whether the VM is in its group's size ({@link #groupSize}): the fleet hears from it (its agent
   * is not silent) and, with an inventory, the inventory lists it.
   */
  default boolean inGroupSize(String vmId) {
    return known(vmId);
  }

  /** The event's type (Reboot, Freeze, Redeploy, Preempt, Terminate, ...), or null. */
  default String eventType(String eventId) {
    return null;
  }

  /**
   * Whether Azure's central word on the event names a VM of the fleet (with an inventory, a name it
   * lists; without one, never: Event Grid speaks for every VM of the subscription).
   */
  default boolean azureListsFleetVm(String eventId) {
    return false;
  }

  /**
   * The open events whose NotBefore is at or before {@code now}: Azure starts each then, approved
   * or not, for every VM it lists, so each counts as released from then ({@link Ledger#observe}).
   */
  default Collection<String> dueOpenEvents(Instant now) {
    return openEvents().stream()
        .filter(e -> e != null && notBefore(e).map(nb -> !nb.isAfter(now)).orElse(false))
        .toList();
  }

  /**
   * The ids of the open events the views show released for any VM ({@link
   * ObservedReleases#released}): where the ledger looks for releases the fleet did not make. The
   * fleet's world keeps them apart as events change; this answer filters every open event.
   */
  default Collection<String> releasedOpenEvents() {
    return openEvents().stream()
        .filter(e -> e != null && ObservedReleases.released(e, this))
        .toList();
  }

  /**
   * Whether Azure's central delivery says the event started or completed (fleet.central-events):
   * released for every VM it lists, whatever the agents said (a VM without an agent says nothing).
   */
  default boolean releasedByAzure(String eventId) {
    return false;
  }

  /**
   * Whether Azure's central delivery says the event is running (Started, not yet over), whatever
   * the views say of it: a VM the ledger counts by name for it counts until Azure says it is over.
   */
  default boolean startedByAzure(String eventId) {
    return false;
  }

  /** The scheduled event's ARM id as Azure's central delivery gave it, or null. */
  default String scheduledEventResource(String eventId) {
    return null;
  }

  /** The event's status as Azure's central delivery last said it, or null when it has not. */
  default dev.sebridge.fleet.agentless.AzureEventStatus azureStatus(String eventId) {
    return null;
  }

  /**
   * The vmId of the VM Azure's inventory lists under a name the event lists ({@code
   * fleet.inventory.*}): the one VM of that name in the event's resource group, which the event's
   * ARM id (Azure's central delivery) or a VM the inventory knows that reported it tells. Null
   * without an inventory, when neither tells the resource group, or when the name is not exactly
   * one VM's there: such a VM stays known by name only. Its group attributes are then the
   * inventory's ({@link #attribute}).
   */
  default String placed(String eventId, String name) {
    return null;
  }

  /**
   * Whether the fleet acknowledges scheduled events through Azure's Maintenance API ({@code
   * fleet.acknowledge.enabled}): how a rollout releases an event only VMs without a live agent
   * have.
   */
  default boolean acknowledges() {
    return false;
  }

  /**
   * The events the fleet sent approval commands for (requests not refused): released, whatever the
   * agents have said yet. With {@code at_least_once} a step's approvals can go out while its state
   * is lost; this is how the next step still counts them. Those the views have are enough (the
   * fleet's world answers only them: a request is kept a month, its event's view a day after it
   * closed): the ledger counts an event's VMs from its view, and one it does not have lists none.
   */
  Collection<String> requestedEvents();

  /** The event's NotBefore, if it has one (rollouts release the earliest first). */
  Optional<Instant> notBefore(String eventId);

  /** The time of the VM's newest heartbeat. */
  Optional<Instant> lastHeartbeat(String vmId);

  /**
   * A VM attribute: scaleSet, zone, resourceGroup or location; null when unknown. With an
   * inventory, Azure's, also for a VM without an agent.
   */
  String attribute(String vmId, String attribute);

  /**
   * Whether Azure's inventory ({@code fleet.inventory.*}) lists this vmId. The views take a VM's
   * attributes from its agent's envelopes, stamped by the inventory as they arrive; the inventory
   * itself may say more recent things (a VM moved to another resource group while it is down, and
   * sends nothing).
   */
  default boolean inventoryLists(String vmId) {
    return false;
  }

  /** A VM attribute as Azure's inventory last gave it; null when it does not list the VM. */
  default String inventoryAttribute(String vmId, String attribute) {
    return null;
  }

  /**
   * Whether the fleet may count this reporting VM by its vmId and group: always without an
   * inventory; with one, only a vmId Azure's inventory lists ({@code fleet.inventory.*}). The
   * events an unknown vmId reports list its VM by name only, as if it had not reported them.
   */
  default boolean known(String vmId) {
    return true;
  }

  /**
   * A VM's name as its view gives it (the name events list it by in their {@code Resources}); null
   * when this instance has no view of the VM, or the view has no name.
   */
  default String name(String vmId) {
    return null;
  }

  /**
   * How many live VMs of the fleet (not silent, not unknown to the inventory) are in this group.
   */
  int groupSize(List<String> groupBy, String group);

  /**
   * The agent's result for the command a request sent this VM when it did not accept it (rejected,
   * failed, dry-run): what halts a rollout. Empty while there is none, and once the agent accepted.
   */
  Optional<Result> unaccepted(String requestId, String vmId);

  /**
   * The VMs (names) a request counted when an agent refused it because its event lists another
   * ({@link Result#resourcesChanged}); empty otherwise, or when the request did not name them.
   */
  default List<String> refusedCounted(String requestId) {
    return List.of();
  }

  /**
   * An approval result.
   *
   * @param outcome rejected, failed, dry-run (accepted is not asked for)
   * @param reason why, as the agent said
   * @param reasonCode the agent's {@code reasonCode}, or null
   */
  record Result(String outcome, String reason, String reasonCode) {
    public Result(String outcome, String reason) {
      this(outcome, reason, null);
    }

    /**
     * The agent refused because the event lists a VM the fleet had not counted when it released it
     * (Azure added it since): nothing was posted, and the event can be released again, counted.
     */
    public boolean resourcesChanged() {
      return "rejected".equals(outcome) && "resources-changed".equals(reasonCode);
    }
  }

  /** The group of a VM: {@code zone=1,scaleSet=web}, or {@code all} with no groupBy. */
  static String group(World w, List<String> groupBy, String vmId) {
    return ListedVms.group(vmId, ListedVms.attributes(vmId, w), groupBy);
  }
}
