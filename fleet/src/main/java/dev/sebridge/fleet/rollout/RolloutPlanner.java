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
import java.util.Optional;
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
   * @param vmIds the VMs to send the command to (the rollout's VMs of the event)
   * @param wave the wave
   */
  public record Release(String requestId, String eventId, List<String> vmIds, int wave) {}

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
    join(r, w, vms, limits, full);
    Rollout.Halt halt = r.halt();
    for (Map.Entry<String, RolloutVm> e : vms.entrySet()) {
      RolloutVm v = observe(r, e.getValue(), w, now);
      e.setValue(v);
      if (halt == null) {
        halt = failure(v, w, now);
      }
    }
    waitForReports(r, w, vms, unreported, now);
    if (halt == null && !full.isEmpty()) {
      halt =
          new Rollout.Halt(
              null,
              full.iterator().next(),
              String.format(
                  "the rollout tracks %d VMs, the most one rollout can (its record has a size"
                      + " limit); VMs of %d event(s) (%s) could not join and are not released by"
                      + " it. Abort it and roll the events out in several rollouts of at most"
                      + " that many VMs each.",
                  vms.size(),
                  full.size(),
                  String.join(", ", full.stream().limit(5).toList())
                      + (full.size() > 5 ? ", ..." : "")),
              now);
    }
    if (halt == null) {
      halt = oversized(pendingUnits(vms), limits);
    }
    if (halt == null) {
      halt = unreportedTooLong(r, w, unreported, now);
    }
    String state = r.state();
    if (halt != null && r.halt() == null) {
      state = Rollout.HALTED;
      history.add(new Rollout.Entry(now, "fleet", "halted", halt.reason()));
    }
    List<Release> releases = new ArrayList<>();
    List<Rollout.Wave> waves = new ArrayList<>(r.waves());
    Rollout current = with(r, state, halt, limits, vms, waves, history, unreported);
    ledger.constrain(current);
    if (halt == null) {
      releases = plan(current, w, ledger, vms, waves.size() + 1, now);
      if (!releases.isEmpty()) {
        List<String> events = releases.stream().map(Release::eventId).toList();
        List<String> released = releases.stream().flatMap(x -> x.vmIds().stream()).toList();
        waves.add(new Rollout.Wave(waves.size() + 1, now, events, released));
      }
      if (vms.values().stream().allMatch(RolloutVm::done)
          && unreported.isEmpty()
          && !r.origin().startsWith("policy:")) {
        state = Rollout.COMPLETED;
        history.add(new Rollout.Entry(now, "fleet", "completed", "every VM is back or skipped"));
      }
    }
    Rollout next = with(r, state, halt, limits, vms, waves, history, unreported);
    ledger.constrain(next);
    return new Step(next, releases);
  }

  private static Rollout with(
      Rollout r,
      String state,
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

  /**
   * VMs that reported one of the rollout's events since the last step join it: pending, or skipped
   * when an operator skipped that event (a late report must not make a skipped event releasable
   * again for the VMs that reported it).
   */
  private static void join(
      Rollout r,
      World w,
      Map<String, RolloutVm> vms,
      Map<String, Integer> limits,
      java.util.Set<String> full) {
    // The skipped events, found once (not once per event: a rollout can hold 10,000 of them).
    java.util.Set<String> skippedEvents = new java.util.HashSet<>();
    for (RolloutVm v : vms.values()) {
      if (v.phase().equals(RolloutVm.SKIPPED)) {
        skippedEvents.add(v.eventId().toLowerCase(java.util.Locale.ROOT));
      }
    }
    for (String eventId : r.spec().eventIds()) {
      boolean skipped = skippedEvents.contains(eventId.toLowerCase(java.util.Locale.ROOT));
      for (VmEventState s : w.eventVms(eventId).values()) {
        RolloutVm member = vms.get(s.vmId());
        if (member != null
            && (member.eventId().equalsIgnoreCase(eventId)
                || !member.done()
                || member.phase().equals(RolloutVm.SKIPPED)
                || s.closed())) {
          // Tracked for this event, or for another one still under way (it joins this one once
          // that is back; the ledger counts it for both meanwhile) or skipped (that skip stays),
          // or it is done with this one.
          continue;
        }
        if (member == null && vms.size() >= Rollout.MAX_VMS) {
          full.add(eventId);
          continue; // the rollout's record would outgrow its limit: see tooLarge
        }
        String group = World.group(w, r.spec().groupBy(), s.vmId());
        RolloutVm v = RolloutVm.pending(s.vmId(), s.name(), eventId, group);
        vms.put(s.vmId(), skipped ? v.phase(RolloutVm.SKIPPED) : v);
        limits.computeIfAbsent(
            group, g -> r.spec().limit(Math.max(1, w.groupSize(r.spec().groupBy(), g))));
      }
    }
  }

  /**
   * An event the rollout still holds that lists VMs which have not reported it waits for them
   * (since when is kept); IMDS would release them with the others, and the fleet could not count
   * them in their groups.
   */
  private static void waitForReports(
      Rollout r,
      World w,
      Map<String, RolloutVm> vms,
      Map<String, Instant> unreported,
      Instant now) {
    // Events with a VM of the rollout past pending, found once.
    java.util.Set<String> moved = new java.util.HashSet<>();
    for (RolloutVm v : vms.values()) {
      if (!v.phase().equals(RolloutVm.PENDING)) {
        moved.add(v.eventId().toLowerCase(java.util.Locale.ROOT));
      }
    }
    for (String eventId : r.spec().eventIds()) {
      boolean held = !moved.contains(eventId.toLowerCase(java.util.Locale.ROOT));
      if (held && !ListedVms.unreported(eventId, w).isEmpty()) {
        unreported.putIfAbsent(eventId, now);
      } else {
        unreported.remove(eventId);
      }
    }
  }

  private static Rollout.Halt unreportedTooLong(
      Rollout r, World w, Map<String, Instant> unreported, Instant now) {
    for (Map.Entry<String, Instant> e : unreported.entrySet()) {
      if (!now.isBefore(e.getValue().plus(r.spec().reportGrace()))) {
        return new Rollout.Halt(
            null,
            e.getKey(),
            String.format(
                "event %s lists VMs that have not reported it for %ds: %s (no agent, or its agent"
                    + " is down or behind). IMDS would release them with the others, uncounted,"
                    + " so the event is held. Skip the event (NotBefore or an approval with"
                    + " override will start it) or abort; resume waits for them again.",
                e.getKey(),
                r.spec().reportGrace().toSeconds(),
                String.join(", ", ListedVms.unreported(e.getKey(), w))),
            now);
      }
    }
    return null;
  }

  /** Moves a VM on by what the fleet sees of it. */
  private static RolloutVm observe(Rollout r, RolloutVm v, World w, Instant now) {
    if (v.done()) {
      return v;
    }
    VmEventState s = w.eventVms(v.eventId()).get(v.vmId());
    String status = s == null ? null : s.status();
    Instant deadline = now.plus(r.spec().timeout());
    if ("canceled".equals(status) || ("inferred".equals(status) && "canceled".equals(s.guess()))) {
      return v.phase(RolloutVm.CANCELED);
    }
    if ("started".equals(status)
        && (v.phase().equals(RolloutVm.PENDING) || v.phase().equals(RolloutVm.APPROVED))) {
      return v.started(now, deadline);
    }
    if ("approved".equals(status) && v.phase().equals(RolloutVm.PENDING)) {
      // someone else approved the event (another VM, the API): it is released all the same
      return v.started(now, deadline).phase(RolloutVm.APPROVED);
    }
    if (("completed".equals(status) || "inferred".equals(status))
        && !v.phase().equals(RolloutVm.COMPLETED)) {
      // On to the agent's heartbeat in the same step, as the ledger's entry moves on (LedgerEntry
      // .next): the rollout and the ledger count the VM back at the same moment.
      v = v.completed(s.since() == null ? now : s.since(), deadline);
    }
    if (v.phase().equals(RolloutVm.COMPLETED)) {
      if (v.agentBackAt() == null) {
        Optional<Instant> heard = w.lastHeartbeat(v.vmId());
        if (heard.isPresent() && heard.get().isAfter(v.completedAt())) {
          v = v.agentBack(now);
        }
      }
      if (v.agentBackAt() != null && !now.isBefore(v.agentBackAt().plus(r.spec().settle()))) {
        return v.back(now);
      }
    }
    return v;
  }

  /** Why this VM halts the rollout, if it does. */
  private static Rollout.Halt failure(RolloutVm v, World w, Instant now) {
    if (v.requestId() != null && !v.resultAcknowledged() && v.phase().equals(RolloutVm.APPROVED)) {
      Optional<World.Result> result = w.result(v.requestId(), v.vmId());
      if (result.isPresent() && !result.get().outcome().equals("accepted")) {
        return new Rollout.Halt(
            v.vmId(),
            v.eventId(),
            "approval " + result.get().outcome() + " on " + label(v) + ": " + result.get().reason(),
            now);
      }
    }
    if (v.unavailable() && v.deadline() != null && now.isAfter(v.deadline())) {
      return new Rollout.Halt(
          v.vmId(), v.eventId(), label(v) + " is not back in time (still " + v.phase() + ")", now);
    }
    return null;
  }

  /** An event with more pending VMs in one group than the group's limit can never be released. */
  private static Rollout.Halt oversized(
      Map<String, Map<String, Integer>> units, Map<String, Integer> limits) {
    for (Map.Entry<String, Map<String, Integer>> unit : units.entrySet()) {
      for (Map.Entry<String, Integer> g : unit.getValue().entrySet()) {
        int limit = limits.get(g.getKey());
        if (g.getValue() > limit) {
          return new Rollout.Halt(
              null,
              unit.getKey(),
              String.format(
                  "event %s would release %d VMs of group %s at once, more than its limit of %d:"
                      + " IMDS starts an approved event for every VM it lists. Skip the event"
                      + " (NotBefore or a manual approval will start it) or abort.",
                  unit.getKey(), g.getValue(), g.getKey(), limit),
              null);
        }
      }
    }
    return null;
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

  private static List<Release> plan(
      Rollout r, World w, Ledger ledger, Map<String, RolloutVm> vms, int wave, Instant now) {
    Map<String, Map<String, Integer>> units = pendingUnits(vms);
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
      if (full || !ledger.fits(eventId, w, now)) {
        continue;
      }
      String requestId = requestId(r.id(), eventId);
      ledger.release(eventId, w, "rollout:" + r.id(), now);
      List<String> targets = new ArrayList<>();
      for (String key : pending) {
        RolloutVm v = vms.get(key);
        vms.put(key, v.approved(wave, requestId, now, now.plus(r.spec().timeout())));
        targets.add(v.vmId());
      }
      releases.add(new Release(requestId, eventId, targets, wave));
    }
    return releases;
  }

  private static String label(RolloutVm v) {
    return v.name() == null ? v.vmId() : v.name() + " (" + v.vmId() + ")";
  }
}
