package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.agentless.AzureScheduledEvent;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.ListedVms;
import dev.sebridge.fleet.rollout.World;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An operator's approval (API, page) decided against the fleet-wide ledger: refused when an active
 * rollout holds the event, when it would put a group over an active rollout's limit, or (while a
 * rollout is active) when this instance's view does not show the event and its VMs yet, unless the
 * operator overrides; admitted and recorded in the ledger otherwise. Either way the request goes to
 * the audit topic, where the request processor sends commands only for an admitted one.
 */
public final class OperatorApproval {
  private OperatorApproval() {}

  /** The request admitted (and recorded as released in {@code ledger}) or refused with why. */
  public static ApprovalRequest decide(ApprovalRequest r, Ledger ledger, World world, Instant now) {
    String mismatch = acknowledgeMismatch(r, world);
    if (mismatch != null) {
      // Not what the API writes (it takes both from the event's view): refused, override or not.
      return r.refused(mismatch);
    }
    String refusal = null;
    if (!r.overrides()) {
      refusal =
          ledger
              .holder(r.eventId())
              .map(
                  h ->
                      "event "
                          + r.eventId()
                          + " is held by rollout "
                          + h.id()
                          + ", which releases it within its limits; approve with override to"
                          + " start it anyway")
              .orElseGet(() -> ledger.refusal(r.eventId(), world, now).orElse(null));
      if (refusal == null && ledger.constrained() && !seen(r, world)) {
        // The API checked its instance's view; this one's may be a moment behind, and the ledger
        // can only count what it sees.
        refusal =
            "the fleet's view here does not show event "
                + r.eventId()
                + " Scheduled on every VM asked for yet; approve again in a moment (with a new"
                + " Idempotency-Key: this request stays refused)";
      }
    }
    if (refusal != null) {
      return r.refused(refusal);
    }
    ledger.release(r.eventId(), world, r.origin(), now);
    if (!seen(r, world)) {
      // No rollout active (or overridden), and this instance's view does not show the event yet
      // (the API's instance showed it; this one is behind, a failover's restore): the VMs the
      // request names count from now, where their views place them, so that a rollout started a
      // moment later does not release their groups' room to others before the event reaches this
      // view. (The event's other names are entered when the view shows it released.)
      // (an entry an earlier approval of the event made here, taken for over while the views did
      // not show the event, counts again: the commands claim these VMs counted)
      ledger.releaseAgain(r.eventId(), requested(r, world), world, r.origin(), now);
      // Its commands claim the names of the VMs counted: an agent refuses the event if Azure lists
      // another (one the API's view showed and this one did not, or one Azure added since), which
      // IMDS would release too, counted nowhere until this view shows the event.
      return r.admit(named(r, world));
    }
    return r.admit(ListedVms.counted(r.eventId(), world));
  }

  /**
   * Why the request's acknowledgement (VMs without an agent) is not one of its event, or null: its
   * ARM id must be that event's scheduled event on a VM, scale set or availability set, and its VMs
   * names the event lists.
   */
  static String acknowledgeMismatch(ApprovalRequest r, World world) {
    Acknowledgement a = r.acknowledge();
    if (a == null) {
      return null;
    }
    if (!AzureScheduledEvent.isScheduledEventId(a.resourceId(), r.eventId())) {
      return "the acknowledgement's ARM id " + a.resourceId() + " is not event " + r.eventId();
    }
    String known = world.scheduledEventResource(r.eventId());
    if (known != null && !known.equalsIgnoreCase(a.resourceId())) {
      return "the acknowledgement's ARM id "
          + a.resourceId()
          + " is not the one Azure gave for event "
          + r.eventId()
          + " ("
          + known
          + ")";
    }
    // (A view behind the API's does not know the event yet: its names are not checked, the
    // acknowledgement's ARM id decides what Azure releases, and the ledger counts what it lists.)
    List<String> resources = world.resources(r.eventId());
    Set<String> listed = new HashSet<>();
    resources.forEach(n -> listed.add(n.toLowerCase(Locale.ROOT)));
    List<String> strangers =
        resources.isEmpty()
            ? List.of()
            : a.vms().stream().filter(n -> !listed.contains(n.toLowerCase(Locale.ROOT))).toList();
    return strangers.isEmpty()
        ? null
        : "event " + r.eventId() + " does not list " + String.join(", ", strangers);
  }

  /**
   * The VMs a request names: its agents' by vmId where this instance knows the VM (its view, and
   * the inventory's word), those without an agent, and any VM this instance does not know, by name
   * (counted in every group, for an hour at most: placed by a view it does not have, a VM counted
   * in no zone left its own zone's room to others; an unknown vmId is never taken for back).
   */
  private static List<ListedVms.Listed> requested(ApprovalRequest r, World world) {
    List<ListedVms.Listed> out = new ArrayList<>();
    for (String id : r.vmIds()) {
      out.add(
          world.known(id) && world.lastHeartbeat(id).isPresent()
              ? new ListedVms.Listed(id, null)
              : new ListedVms.Listed(null, id));
    }
    if (r.acknowledge() != null) {
      r.acknowledge().vms().forEach(n -> out.add(new ListedVms.Listed(null, n)));
    }
    return out;
  }

  /**
   * The names of the VMs an approval of an event the views do not show yet counted ({@link
   * #requested}): the VMs asked for, by the names their views give them, and those acknowledged
   * for, with the names the view lists for the event if it has it (with fewer VMs than asked for).
   * Empty (its commands claim nothing) when a VM asked for has no view here, or no name, or the
   * view's event lists VMs and none by a usable name ({@link ListedVms#counted}).
   */
  private static List<String> named(ApprovalRequest r, World world) {
    Set<String> seen = new HashSet<>();
    List<String> out = new ArrayList<>();
    if (world.viewed(r.eventId()) && !ListedVms.of(r.eventId(), world).isEmpty()) {
      List<String> listed = ListedVms.counted(r.eventId(), world);
      if (listed.isEmpty()) {
        return List.of(); // the VMs the view lists have no usable name
      }
      listed.forEach(n -> seen.add(n.toLowerCase(Locale.ROOT)));
      out.addAll(listed);
    }
    for (String id : r.vmIds()) {
      String name = world.name(id);
      if (name == null || name.isBlank()) {
        return List.of();
      }
      if (seen.add(name.toLowerCase(Locale.ROOT))) {
        out.add(name);
      }
    }
    if (r.acknowledge() != null) {
      r.acknowledge().vms().stream()
          .filter(n -> seen.add(n.toLowerCase(Locale.ROOT)))
          .forEach(out::add);
    }
    return out;
  }

  /** Whether this instance's view shows the event open, with every VM of the request in it. */
  private static boolean seen(ApprovalRequest r, World world) {
    return r.eventId() != null
        && world.open(r.eventId())
        && world.eventVms(r.eventId()).keySet().containsAll(r.vmIds());
  }
}
