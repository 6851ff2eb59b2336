package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.agentless.AzureEventStatus;
import dev.sebridge.fleet.model.EventIds;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which VMs and events a rollout holds, a part of {@link RolloutPlanner}'s step: VMs that report
 * its events join it, and so do the VMs without a report that Azure's inventory places ({@link
 * ListedVms#placed}), at most {@link Rollout#MAX_VMS}; an event that lists VMs the fleet cannot
 * count in a group, or only VMs without an agent that it cannot acknowledge for, waits, and halts
 * the rollout naming them after the spec's reportGrace.
 */
final class RolloutMembers {
  private RolloutMembers() {}

  /**
   * VMs that reported one of the rollout's events since the last step join it, an entry per VM and
   * event: pending, or skipped when an operator skipped that event (a late report must not make a
   * skipped event releasable again for the VMs that reported it). A VM's other event is an entry of
   * its own, whatever became of the first: the ledger counts the VM once while either is under way.
   */
  static void join(
      Rollout r,
      World w,
      Map<String, RolloutVm> vms,
      Map<String, Integer> limits,
      Set<String> full) {
    // The skipped events, found once (not once per event: a rollout can hold 10,000 of them).
    Set<String> skippedEvents = new java.util.HashSet<>();
    for (RolloutVm v : vms.values()) {
      if (v.phase().equals(RolloutVm.SKIPPED)) {
        skippedEvents.add(EventIds.lower(v.eventId()));
      }
    }
    for (String eventId : r.spec().eventIds()) {
      boolean skipped = !skippedEvents.isEmpty() && skippedEvents.contains(EventIds.lower(eventId));
      for (VmEventState s : w.eventVms(eventId).values()) {
        String key = RolloutVm.key(s.vmId(), eventId);
        if (vms.containsKey(key)) {
          continue;
        }
        if (vms.size() >= Rollout.MAX_VMS) {
          full.add(eventId);
          continue; // the rollout's record would outgrow its limit: see tooLarge
        }
        add(r, w, vms, limits, RolloutVm.pending(s.vmId(), s.name(), eventId, null), skipped);
      }
      for (ListedVms.Listed l : ListedVms.placed(eventId, w)) {
        String key = RolloutVm.key(l.vmId(), eventId);
        if (vms.containsKey(key)) {
          continue;
        }
        if (vms.size() >= Rollout.MAX_VMS) {
          full.add(eventId);
          continue;
        }
        add(r, w, vms, limits, RolloutVm.pending(l.vmId(), l.name(), eventId, null), skipped);
      }
    }
  }

  private static void add(
      Rollout r,
      World w,
      Map<String, RolloutVm> vms,
      Map<String, Integer> limits,
      RolloutVm joining,
      boolean skipped) {
    String group = World.group(w, r.spec().groupBy(), joining.vmId());
    RolloutVm v = RolloutVm.pending(joining.vmId(), joining.name(), joining.eventId(), group);
    vms.put(v.key(), skipped ? v.phase(RolloutVm.SKIPPED) : v);
    limits.computeIfAbsent(
        group, g -> r.spec().limit(Math.max(1, w.groupSize(r.spec().groupBy(), g))));
  }

  /**
   * What a held event waits for: the names it lists that no VM reported and Azure's inventory does
   * not place (the fleet cannot count them in a group); or, when every VM of it the fleet knows is
   * one without a report, those VMs, while the fleet cannot acknowledge the event for them ({@link
   * #acknowledgeable}). Empty when it can be released.
   */
  /**
   * As {@link #waitingFor(String, World)}, with the rollout's pending VMs of the event that the
   * views list nowhere and cannot place ({@link #unlisted}: counted by name, the event waits for
   * the views): by name.
   */
  static List<String> waitingFor(String eventId, World w, List<RolloutVm> pending) {
    List<String> waiting = waitingFor(eventId, w);
    List<String> unplaceable =
        unlisted(eventId, pending, w).stream()
            .filter(l -> l.vmId() == null)
            .map(ListedVms.Listed::name)
            .toList();
    if (unplaceable.isEmpty()) {
      return waiting;
    }
    List<String> all = new java.util.ArrayList<>(waiting);
    unplaceable.stream().filter(n -> !all.contains(n)).forEach(all::add);
    return all;
  }

  /** The rollout's pending VMs by event (the id in lower case). */
  static Map<String, List<RolloutVm>> pendingByEvent(Map<String, RolloutVm> vms) {
    Map<String, List<RolloutVm>> out = new java.util.HashMap<>();
    for (RolloutVm v : vms.values()) {
      if (v.phase().equals(RolloutVm.PENDING)) {
        out.computeIfAbsent(EventIds.lower(v.eventId()), k -> new java.util.ArrayList<>()).add(v);
      }
    }
    return out;
  }

  static List<String> waitingFor(String eventId, World w) {
    List<ListedVms.Listed> listed = ListedVms.of(eventId, w);
    List<String> unplaced =
        listed.stream().filter(l -> l.vmId() == null).map(ListedVms.Listed::name).toList();
    if (!unplaced.isEmpty()) {
      return unplaced;
    }
    boolean reported = listed.stream().anyMatch(l -> !l.placed());
    if (reported || acknowledgeable(eventId, w)) {
      return List.of();
    }
    return listed.stream().map(ListedVms.Listed::name).toList();
  }

  /**
   * Whether the fleet can release the event through Azure's Maintenance API: it acknowledges
   * ({@code fleet.acknowledge.enabled}), Azure's central delivery gave the event's ARM id, and says
   * it is Scheduled.
   */
  static boolean acknowledgeable(String eventId, World w) {
    return w.acknowledges()
        && w.scheduledEventResource(eventId) != null
        && w.azureStatus(eventId) == AzureEventStatus.SCHEDULED;
  }

  /**
   * An event the rollout still holds that lists VMs which have not reported it waits for them
   * (since when is kept); IMDS would release them with the others, and the fleet could not count
   * them in their groups.
   */
  static void waitForReports(
      Rollout r,
      World w,
      Map<String, RolloutVm> vms,
      Map<String, Instant> unreported,
      Instant now) {
    // Events with a VM of the rollout past pending, found once: by the id as the entry spells it
    // (the spec's spelling, which VMs join with), then in lower case for any other spelling.
    Set<String> moved = new java.util.HashSet<>(2 * vms.size());
    Set<String> movedLower = new java.util.HashSet<>(2 * vms.size());
    for (RolloutVm v : vms.values()) {
      if (!v.phase().equals(RolloutVm.PENDING)) {
        if (moved.add(v.eventId())) {
          movedLower.add(EventIds.lower(v.eventId()));
        }
      }
    }
    Map<String, List<RolloutVm>> pending = pendingByEvent(vms);
    for (String eventId : r.spec().eventIds()) {
      boolean held = !moved.contains(eventId) && !movedLower.contains(EventIds.lower(eventId));
      if (held
          && !waitingFor(eventId, w, pending.getOrDefault(EventIds.lower(eventId), List.of()))
              .isEmpty()) {
        unreported.putIfAbsent(eventId, now);
      } else {
        unreported.remove(eventId);
      }
    }
  }

  static Rollout.Halt unreportedTooLong(
      Rollout r,
      World w,
      Map<String, RolloutVm> vms,
      Map<String, Instant> unreported,
      Instant now) {
    Map<String, List<RolloutVm>> pending = null;
    for (Map.Entry<String, Instant> e : unreported.entrySet()) {
      if (!now.isBefore(e.getValue().plus(r.spec().reportGrace()))) {
        if (pending == null) {
          pending = pendingByEvent(vms);
        }
        List<String> waiting =
            waitingFor(e.getKey(), w, pending.getOrDefault(EventIds.lower(e.getKey()), List.of()));
        if (!waiting.isEmpty() && ListedVms.unplaced(e.getKey(), w).isEmpty()) {
          return new Rollout.Halt(
              null,
              e.getKey(),
              String.format(
                  "event %s lists only VMs without a report of it for %ds: %s. No agent can"
                      + " approve it, and the fleet cannot acknowledge it through Azure's"
                      + " Maintenance API (fleet.acknowledge.enabled is off, Azure's central"
                      + " delivery has not given the event's ARM id, or Azure no longer says it"
                      + " is Scheduled), so the event is held. Skip the event (NotBefore or an"
                      + " approval with override will start it) or abort; resume waits again.",
                  e.getKey(), r.spec().reportGrace().toSeconds(), String.join(", ", waiting)),
              now);
        }
        return new Rollout.Halt(
            null,
            e.getKey(),
            String.format(
                "event %s lists VMs that have not reported it for %ds: %s (no agent, its agent"
                    + " is down or behind, or it reports a vmId Azure's inventory does not"
                    + " list; and the inventory does not place it). IMDS would release them with"
                    + " the others, uncounted, so the event is held. Skip the event (NotBefore or an approval with"
                    + " override will start it) or abort; resume waits for them again.",
                e.getKey(), r.spec().reportGrace().toSeconds(), String.join(", ", waiting)),
            now);
      }
    }
    return null;
  }

  /** The halt of a rollout that VMs of these events could not join ({@link Rollout#MAX_VMS}). */
  static Rollout.Halt tooLarge(Map<String, RolloutVm> vms, Set<String> full, Instant now) {
    if (full.isEmpty()) {
      return null;
    }
    return new Rollout.Halt(
        null,
        full.iterator().next(),
        String.format(
            "the rollout tracks %d VMs (a VM per event), the most one rollout can (its record has a size"
                + " limit); VMs of %d event(s) (%s) could not join and are not released by"
                + " it. Abort it and roll the events out in several rollouts of at most"
                + " that many VMs each.",
            vms.size(),
            full.size(),
            String.join(", ", full.stream().limit(5).toList()) + (full.size() > 5 ? ", ..." : "")),
        now);
  }

  /**
   * The pending VMs of the rollout in this event that the views do not list in it (neither by vmId
   * nor by name, and no report of theirs in it: a report the views hold but do not list is one they
   * do not trust, an unknown VM's), each by its vmId: counted in its groups as the views and the
   * inventory give them, as a VM whose part the views do not show yet ({@link
   * EntryProgress#overWithoutItsPart}).
   */
  static List<ListedVms.Listed> unlisted(String eventId, List<RolloutVm> pending, World w) {
    if (pending.isEmpty()) {
      return List.of();
    }
    java.util.Set<String> listed = new java.util.HashSet<>();
    for (ListedVms.Listed l : ListedVms.of(eventId, w)) {
      if (l.vmId() != null) {
        listed.add(l.vmId());
      }
      if (l.name() != null) {
        listed.add("name:" + l.name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    Map<String, VmEventState> reported = w.eventVms(eventId);
    List<ListedVms.Listed> out = new java.util.ArrayList<>();
    for (RolloutVm v : pending) {
      boolean known =
          listed.contains(v.vmId())
              || reported.containsKey(v.vmId())
              || (v.name() != null
                  && listed.contains("name:" + v.name().toLowerCase(java.util.Locale.ROOT)));
      if (!known) {
        // A VM whose agent the views have heard from: by its vmId, in its groups as they place it,
        // back once its agent is heard from after the event. One without (the inventory placed
        // it when the rollout took it in): placed, back as a VM known by name is. Views that can
        // place it neither way (too new for them) count it by name, in any group: the event waits
        // for them while a rollout is active (LedgerLimits.check).
        if (w.lastHeartbeat(v.vmId()).isPresent()) {
          out.add(new ListedVms.Listed(v.vmId(), v.name()));
        } else if (w.inventoryLists(v.vmId()) || v.name() == null) {
          out.add(new ListedVms.Listed(v.vmId(), v.name(), true));
        } else {
          out.add(new ListedVms.Listed(null, v.name()));
        }
      }
    }
    return out;
  }
}
