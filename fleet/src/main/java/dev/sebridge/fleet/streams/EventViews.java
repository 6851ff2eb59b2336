package dev.sebridge.fleet.streams;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.Source;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.imds.NotBefore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one VM's report changes an event's view. Pure functions: a VM's part is replaced, never added
 * twice, so the many agents that report one platform event are merged by vmId.
 */
final class EventViews {
  private EventViews() {}

  /** The updates one envelope makes, keyed by event (a result may name several events). */
  static List<VmEventUpdate> updatesOf(dev.sebridge.fleet.model.FleetEnvelope e) {
    return updatesOf(e, null, false);
  }

  /**
   * @param listedName the VM's name as Azure's inventory lists it, or null (none, or not listed)
   * @param nameUnknown there is an inventory and it gives the reporting vmId no name now: a report
   *     not its own by the agent's name goes to the VM's part, if it has one ({@link
   *     VmEventUpdate#ifPart}), since the name the part was counted by cannot be checked now
   */
  static List<VmEventUpdate> updatesOf(
      dev.sebridge.fleet.model.FleetEnvelope e, String listedName, boolean nameUnknown) {
    List<VmEventUpdate> out = new ArrayList<>();
    JsonNode vm = e.vm();
    String name = vm.path("name").asText(null);
    String zone = vm.path("zone").asText(null);
    String scaleSet = vm.path("vmScaleSetName").asText(null);
    if (e.isTransition() && !e.eventKey().isEmpty()) {
      boolean own = affects(e, listedName);
      if (own || nameUnknown) {
        VmEventUpdate u =
            new VmEventUpdate(
                e.eventKey(),
                e.vmId(),
                name,
                zone,
                scaleSet,
                e.time(),
                e.transition(),
                e.inferred(),
                e.event(),
                null);
        // Not its own by its agent's name, and the inventory does not name it now (a refresh
        // missed it): the part it has, counted by the name the inventory gave it, still moves
        // with its reports (its end closes it; seen again, it opens again).
        out.add(own ? u : u.onlyIfPart());
      }
    } else if (e.isResult()) {
      JsonNode d = e.data();
      if (d.path("resultKind").asText("outcome").equals("outcome")) {
        VmEventState.ApprovalInfo info =
            new VmEventState.ApprovalInfo(
                d.path("outcome").asText(null),
                d.path("reasonCode").asText(null),
                d.path("requestedBy").asText(null),
                d.path("commandId").asText(null),
                e.time());
        for (JsonNode id : d.path("eventIds")) {
          out.add(
              new VmEventUpdate(
                  id.asText().toLowerCase(java.util.Locale.ROOT),
                  e.vmId(),
                  name,
                  zone,
                  scaleSet,
                  e.time(),
                  "approval",
                  false,
                  null,
                  info));
        }
      }
    }
    return out;
  }

  /**
   * Whether a transition is of the envelope's own VM: its agent says so ({@code affectsThisVm}: the
   * event's Resources list the name it knows itself by), or the event lists the name Azure's
   * inventory gives its vmId. An agent that could not read its name from IMDS takes the host's (a
   * uniform scale set's instance {@code web_3} is host {@code web000003}) and finds itself in none
   * of its events: taken at its word, its events never reached the views, and Azure rebooted it
   * uncounted.
   */
  static boolean affects(dev.sebridge.fleet.model.FleetEnvelope e, String listedName) {
    if (e.affectsThisVm()) {
      return true;
    }
    if (listedName == null || e.event() == null) {
      return false;
    }
    for (JsonNode r : e.event().path("Resources")) {
      if (listedName.equalsIgnoreCase(r.asText())) {
        return true;
      }
    }
    return false;
  }

  /** An agent's word that the event is over for it (not Azure's, not a gone VM's). */
  static boolean removal(String transition) {
    return transition.equals("completed") || transition.equals("canceled");
  }

  static EventView apply(EventView old, VmEventUpdate u) {
    return apply(old, u, vmId -> true);
  }

  static EventView apply(
      EventView old, VmEventUpdate u, java.util.function.Predicate<String> known) {
    return apply(old, u, known, null);
  }

  /**
   * @param known whether a VM is one Azure's inventory lists (always, without one): once a known VM
   *     reported the event, an unknown VM's report changes only its own part (not the event's type,
   *     NotBefore, duration or Resources); the first known VM's report replaces every field an
   *     unknown one set, those it does not give included
   * @param now the service's clock, or null: a report's time later than it counts as now when
   *     reports are ordered (an agent whose clock runs ahead, or is broken, would otherwise hold
   *     the event's fields against every newer report until its time came)
   */
  static EventView apply(
      EventView old, VmEventUpdate u, java.util.function.Predicate<String> known, Instant now) {
    if (u.central() != null) {
      return CentralReports.apply(old, u.central(), u.time(), u.isReconciled());
    }
    EventView next = applyAgents(old, u, known, now);
    // Azure's report, and who saw the event first, stay as they were.
    return old == null
        ? next.withCentral(null, Source.AGENT)
        : next.withCentral(
            old.central(), old.firstSeenBy() == null ? Source.AGENT : old.firstSeenBy());
  }

  private static EventView applyAgents(
      EventView old, VmEventUpdate u, java.util.function.Predicate<String> known, Instant now) {
    Map<String, VmEventState> vms = new LinkedHashMap<>(old == null ? Map.of() : old.vms());
    boolean knownBefore = vms.keySet().stream().anyMatch(known);
    VmEventState before = vms.get(u.vmId());
    JsonNode ev = u.event();
    String status;
    String guess = null;
    VmEventState.ApprovalInfo approval = before == null ? null : before.approval();
    Instant since = before == null ? u.time() : before.since();
    String current = before == null ? null : before.status();
    switch (u.transition()) {
      case "scheduled" -> status = "approved".equals(current) ? current : "scheduled";
      case "started" -> status = "started";
      case "updated" ->
          status =
              ev.path("EventStatus").asText("").equals("Started")
                  ? "started"
                  : keep(current, "scheduled");
      case "completed", "canceled", VmProcessor.VANISHED -> {
        status = u.inferred() ? "inferred" : u.transition();
        guess = u.inferred() ? u.transition() : null;
      }
      case "approval" -> {
        approval = u.approval();
        boolean accepted = "accepted".equals(approval.outcome());
        status =
            accepted && (current == null || current.equals("scheduled"))
                ? "approved"
                : keep(current, "scheduled");
      }
      default -> status = keep(current, "scheduled");
    }
    if (!status.equals(current)) {
      since = u.time();
    }
    // A report that is not the VM's own by name keeps the part's name and place: the agent's
    // (its host's) name is not the one the event lists, by which the part was counted.
    VmEventUpdate by = u.ifPart() && before != null ? null : u;
    vms.put(
        u.vmId(),
        new VmEventState(
            u.vmId(),
            by != null && by.name() != null ? by.name() : before == null ? null : before.name(),
            by != null && by.zone() != null ? by.zone() : before == null ? null : before.zone(),
            by != null && by.scaleSet() != null
                ? by.scaleSet()
                : before == null ? null : before.scaleSet(),
            status,
            guess,
            since,
            approval));
    // Every part, an unknown VM's included: it may be a real VM the inventory does not list yet,
    // down while it says so (the ledger counts it by name until the event is over).
    boolean closed = !vms.isEmpty() && vms.values().stream().allMatch(VmEventState::closed);
    // When the service heard it: the report's time, but never later than the service's clock. An
    // agent whose clock ran a year ahead kept an event it never ends open, and one it ended kept,
    // a year longer (the views' retention reads these by the service's clock). The parts' times
    // stay the agent's: the ledger compares them with its heartbeats' times.
    Instant heard = u.time() != null && now != null && u.time().isAfter(now) ? now : u.time();
    Instant closedAt =
        closed ? (old != null && old.closedAt() != null ? old.closedAt() : heard) : null;
    // The event as it was, for what this report does not give: not what only unknown VMs said.
    EventView was = old != null && !knownBefore && known.test(u.vmId()) ? null : old;
    // A report older than the one the event's fields came from, delivered after it (an agent's
    // outbox catching up after an outage): what it says of the event is not news. Taken, it would
    // put back the Resources or the NotBefore Azure has since changed: a VM Azure added to the
    // event, then counted nowhere, or a NotBefore brought forward, missed.
    Instant reportedAt = heard;
    boolean stale =
        was != null
            && was.reportedAt() != null
            && reportedAt != null
            && reportedAt.isBefore(was.reportedAt());
    // A removal carries the event as its agent last saw it, stamped when it saw it gone (after an
    // outage, hours later): not news of the event either, unless the view has nothing better.
    boolean removal = removal(u.transition()) || u.transition().equals(VmProcessor.VANISHED);
    if (ev == null
        || ev.isMissingNode()
        || (knownBefore && !known.test(u.vmId()))
        || stale
        || (removal && was != null)) {
      // An approval result, an unknown VM's report of an event known VMs report, a late one, or a
      // removal: the event's own fields stay as the transitions (the known VMs', the newest)
      // reported them.
      return old == null
          ? new EventView(
              u.eventKey(), null, null, null, null, null, List.of(), heard, heard, closedAt, vms)
          : new EventView(
              old.eventId(),
              old.eventType(),
              old.eventSource(),
              old.notBefore(),
              old.durationInSeconds(),
              old.description(),
              old.resources(),
              stale || removal ? earlier(old.firstSeenAt(), heard) : old.firstSeenAt(),
              later(old.lastSeenAt(), heard),
              closedAt,
              vms,
              null,
              null,
              old.reportedAt());
    }
    List<String> resources = new ArrayList<>();
    ev.path("Resources").forEach(r -> resources.add(r.asText()));
    Instant notBefore = NotBefore.parse(ev.path("NotBefore").asText("")).orElse(null);
    JsonNode duration = ev.path("DurationInSeconds");
    return new EventView(
        ev.path("EventId").asText(u.eventKey()),
        ev.path("EventType").asText(null),
        ev.path("EventSource").asText(was == null ? null : was.eventSource()),
        notBefore,
        // Boxed on both sides: an int here would unbox a missing duration (null) and throw.
        duration.canConvertToInt()
            ? Integer.valueOf(duration.asInt())
            : was == null ? null : was.durationInSeconds(),
        ev.path("Description").asText(was == null ? null : was.description()),
        resources.isEmpty() && was != null ? was.resources() : resources,
        old == null || old.firstSeenAt() == null ? heard : earlier(old.firstSeenAt(), heard),
        old == null ? heard : later(old.lastSeenAt(), heard),
        closedAt,
        vms,
        null,
        null,
        // (a removal's fields, taken for want of any, give way to the next report's)
        removal ? null : reportedAt);
  }

  private static String keep(String current, String otherwise) {
    return current == null || current.equals("inferred") ? otherwise : current;
  }

  static Instant later(Instant a, Instant b) {
    return a == null || (b != null && b.isAfter(a)) ? b : a;
  }

  static Instant earlier(Instant a, Instant b) {
    return a == null || (b != null && b.isBefore(a)) ? b : a;
  }
}
