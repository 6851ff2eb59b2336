package dev.sebridge.fleet.rollout;

import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One step of a rollout: reads the world, moves each VM on, halts when a VM fails or takes too
 * long, and releases the events that fit. A pure function of the rollout, the world and the time,
 * so the rollout processor and the property test run the very same code.
 *
 * <p>The unit of release is an event: IMDS starts an approved event for every VM it lists, so the
 * planner approves an event only when every VM it lists has reported it and all of them fit within
 * their groups' limits together, as the fleet-wide {@link Ledger} counts them (every active
 * rollout's limits, every VM any path released); it halts when an event alone is larger than a
 * group's limit (no order of approvals could respect it) or lists VMs that have not reported it for
 * longer than the spec's reportGrace.
 */
public final class RolloutPlanner {
  private RolloutPlanner() {}

  /**
   * An event to approve.
   *
   * @param requestId the approval request's id (deterministic: rollout and event)
   * @param eventId the event
   * @param vmIds the VMs to send the command to (the rollout's VMs of the event that reported it)
   * @param wave the wave
   * @param acknowledge the names of the rollout's VMs of the event without a report of it (placed
   *     by Azure's inventory), for which the fleet acknowledges the event through Azure's
   *     Maintenance API when it can ({@link RolloutMembers#acknowledgeable}); empty when none
   * @param placed the vmIds of the rollout's VMs of the event without a report of it
   * @param counted the names of the VMs the event lists that the ledger entered on its release
   *     ({@link ListedVms#counted}): its commands' {@code resources} claim
   */
  public record Release(
      String requestId,
      String eventId,
      List<String> vmIds,
      int wave,
      List<String> acknowledge,
      List<String> placed,
      List<String> counted) {
    public Release {
      vmIds = List.copyOf(vmIds);
      acknowledge = List.copyOf(acknowledge);
      placed = List.copyOf(placed);
      counted = List.copyOf(counted);
    }

    public Release(String requestId, String eventId, List<String> vmIds, int wave) {
      this(requestId, eventId, vmIds, wave, List.of(), List.of(), List.of());
    }
  }

  /** The rollout after the step, and what to approve. */
  public record Step(Rollout rollout, List<Release> releases) {}

  public static String requestId(String rolloutId, String eventId) {
    return NameBasedUuid.v5(
            NameBasedUuid.SEBRIDGE_NAMESPACE, "fleet-rollout|" + rolloutId + "|" + eventId)
        .toString();
  }

  /**
   * One step against the fleet-wide ledger: the rollout's releases are those the ledger admits
   * under every active rollout's limits (this one's included), and are recorded in it.
   */
  public static Step step(Rollout r, World w, Ledger ledger, Instant now) {
    if (!r.active()) {
      ledger.constrain(r);
      return new Step(r, List.of());
    }
    Map<String, RolloutVm> vms = new TreeMap<>(r.vms());
    Map<String, Integer> limits = new TreeMap<>(r.groupLimits());
    Map<String, Instant> unreported = new TreeMap<>(r.unreported());
    List<Rollout.Entry> history = new ArrayList<>(r.history());
    java.util.Set<String> full = new java.util.TreeSet<>();
    RolloutMembers.join(r, w, vms, limits, full);
    RecordedLimits.lower(r, w, limits);
    Rollout.Halt halt = r.halt();
    for (Map.Entry<String, RolloutVm> e : vms.entrySet()) {
      e.setValue(VmProgress.observe(r, e.getValue(), w, now));
    }
    java.util.Set<String> refused = RefusedReleases.requests(vms.values(), w);
    for (Map.Entry<String, RolloutVm> e : vms.entrySet()) {
      RolloutVm v = e.getValue();
      if (v.requestId() != null
          && refused.contains(v.requestId())
          && v.phase().equals(RolloutVm.APPROVED)) {
        v = v.pendingAgain(now.plus(r.spec().timeout()));
        e.setValue(v);
      }
      if (halt == null) {
        halt = VmProgress.failure(v, w, now);
      }
    }
    RolloutMembers.waitForReports(r, w, vms, unreported, now);
    Map<String, Map<String, Integer>> units = pendingUnits(vms);
    if (halt == null) {
      halt = RolloutMembers.tooLarge(vms, full, now);
    }
    if (halt == null) {
      halt = RecordedLimits.oversized(units, limits, now);
    }
    if (halt == null) {
      halt = RolloutMembers.unreportedTooLong(r, w, vms, unreported, now);
    }
    Rollout.State state = r.state();
    if (halt != null && r.halt() == null) {
      state = Rollout.HALTED;
      history.add(new Rollout.Entry(now, "fleet", "halted", halt.reason()));
    }
    List<Release> releases = new ArrayList<>();
    List<Rollout.Wave> waves = new ArrayList<>(r.waves());
    Rollout current = with(r, state, halt, limits, vms, waves, history, unreported);
    ledger.constrain(current);
    if (halt == null) {
      // After the last wave's number (a policy's rollout sheds its old waves: RolloutRetention).
      int wave = waves.isEmpty() ? 1 : waves.get(waves.size() - 1).number() + 1;
      releases = plan(current, w, ledger, vms, units, wave, now);
      if (!releases.isEmpty()) {
        List<String> events = releases.stream().map(Release::eventId).toList();
        // Every VM the wave approved: those commanded, and those without a report.
        List<String> released =
            releases.stream()
                .flatMap(
                    x -> java.util.stream.Stream.concat(x.vmIds().stream(), x.placed().stream()))
                .toList();
        waves.add(new Rollout.Wave(wave, now, events, released));
      }
      if (vms.values().stream().allMatch(RolloutVm::done)
          && unreported.isEmpty()
          && !r.origin().startsWith("policy:")) {
        state = Rollout.COMPLETED;
        history.add(new Rollout.Entry(now, "fleet", "completed", "every VM is back or skipped"));
      }
    }
    // Nothing released and no new state (a waiting step, most of them): the rollout built above,
    // not a second copy of its 10,000 entries. (Only a release changes vms and waves after it, and
    // only a new state the history.)
    Rollout next =
        releases.isEmpty() && state == current.state()
            ? current
            : with(r, state, halt, limits, vms, waves, history, unreported);
    ledger.constrain(next);
    return new Step(next, releases);
  }

  private static Rollout with(
      Rollout r,
      Rollout.State state,
      Rollout.Halt halt,
      Map<String, Integer> limits,
      Map<String, RolloutVm> vms,
      List<Rollout.Wave> waves,
      List<Rollout.Entry> history,
      Map<String, Instant> unreported) {
    return new Rollout(
        r.id(),
        r.spec(),
        r.reason(),
        r.requestedBy(),
        r.origin(),
        r.createdAt(),
        state,
        halt,
        limits,
        vms,
        waves,
        history,
        unreported);
  }

  /** Events whose rollout VMs are all pending: VMs per group. */
  private static Map<String, Map<String, Integer>> pendingUnits(Map<String, RolloutVm> vms) {
    Map<String, Map<String, Integer>> units = new LinkedHashMap<>();
    Map<String, Boolean> released = new HashMap<>();
    for (RolloutVm v : vms.values()) {
      if (v.phase().equals(RolloutVm.SKIPPED) || v.phase().equals(RolloutVm.CANCELED)) {
        continue;
      }
      boolean pending = v.phase().equals(RolloutVm.PENDING);
      released.merge(v.eventId(), !pending, Boolean::logicalOr);
      if (pending) {
        units.computeIfAbsent(v.eventId(), k -> new TreeMap<>()).merge(v.group(), 1, Integer::sum);
      }
    }
    units.keySet().removeIf(released::get);
    return units;
  }

  /** The events to release now, from {@code units} (events whose rollout VMs are all pending). */
  private static List<Release> plan(
      Rollout r,
      World w,
      Ledger ledger,
      Map<String, RolloutVm> vms,
      Map<String, Map<String, Integer>> units,
      int wave,
      Instant now) {
    units.keySet().removeIf(r.unreported()::containsKey);
    // Each event's NotBefore read once (a comparator would read the view on every comparison).
    Map<String, Instant> notBefore = new HashMap<>();
    units.keySet().forEach(e -> notBefore.put(e, w.notBefore(e).orElse(Instant.MAX)));
    List<String> order = new ArrayList<>(units.keySet());
    order.sort(
        Comparator.comparing((String e) -> notBefore.get(e))
            .thenComparing(Comparator.naturalOrder()));
    Map<String, List<String>> pendingOf = new HashMap<>();
    vms.forEach(
        (key, v) -> {
          if (v.phase().equals(RolloutVm.PENDING)) {
            pendingOf.computeIfAbsent(v.eventId(), e -> new ArrayList<>()).add(key);
          }
        });
    List<Release> releases = new ArrayList<>();
    for (String eventId : order) {
      List<String> pending = pendingOf.getOrDefault(eventId, List.of());
      // A VM of the event in a group of this rollout that is full: refused, without the full check.
      boolean full = false;
      for (String key : pending) {
        RolloutVm v = vms.get(key);
        if (ledger.noRoom(r, v.group(), LedgerEntry.vmKey(v.vmId(), v.name()), w, now)) {
          full = true;
          break;
        }
      }
      // The rollout's VMs of the event these views do not list in it (another instance's views
      // did, when they joined; these are behind): acknowledged through the Maintenance API all the
      // same, which releases the event for them too, so they are checked and entered as well.
      List<ListedVms.Listed> unlisted =
          RolloutMembers.unlisted(eventId, pending.stream().map(vms::get).toList(), w);
      if (full || !ledger.fits(eventId, unlisted, w, now)) {
        continue;
      }
      // The VMs that reported the event get a command; those without a report (placed by the
      // inventory) an acknowledgement through Azure's Maintenance API, which an event only they
      // have needs (IMDS releases an event any of its VMs approves for all of them).
      Map<String, VmEventState> reported = w.eventVms(eventId);
      List<String> targets = new ArrayList<>();
      List<String> acknowledge = new ArrayList<>();
      List<String> placed = new ArrayList<>();
      for (String key : pending) {
        RolloutVm v = vms.get(key);
        if (reported.containsKey(v.vmId())) {
          targets.add(v.vmId());
        } else {
          acknowledge.add(v.name());
          placed.add(v.vmId());
        }
      }
      boolean acknowledgeable = RolloutMembers.acknowledgeable(eventId, w);
      if (targets.isEmpty() && !acknowledgeable) {
        continue; // nothing could release it: it waits (RolloutMembers.waitingFor)
      }
      String refusedRequest = RefusedReleases.refused(pending, vms);
      if (refusedRequest != null && !RefusedReleases.changed(eventId, refusedRequest, w)) {
        continue; // refused for a VM the views do not list in the event yet: it waits for them
      }
      String requestId =
          refusedRequest == null
              ? requestId(r.id(), eventId)
              : RefusedReleases.requestId(refusedRequest);
      ledger.release(eventId, w, "rollout:" + r.id(), now);
      if (!unlisted.isEmpty()) {
        ledger.release(eventId, unlisted, w, "rollout:" + r.id(), now);
      }
      List<String> counted = ListedVms.counted(eventId, w);
      if (!counted.isEmpty() && !unlisted.isEmpty()) {
        // Counted too: the commands' claim names them, or the agents would refuse the event
        // their IMDS lists them in (while the acknowledgement releases it all the same).
        java.util.Set<String> names = new java.util.TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        names.addAll(counted);
        List<String> more = new ArrayList<>(counted);
        unlisted.stream()
            .map(ListedVms.Listed::name)
            .filter(n -> n != null && !n.isBlank() && names.add(n))
            .forEach(more::add);
        counted = List.copyOf(more);
      }
      for (String key : pending) {
        RolloutVm v = vms.get(key);
        vms.put(key, v.approved(wave, requestId, now, now.plus(r.spec().timeout())));
      }
      releases.add(
          new Release(
              requestId,
              eventId,
              targets,
              wave,
              acknowledgeable ? acknowledge : List.of(),
              placed,
              counted));
    }
    return releases;
  }
}
