package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.EventIds;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The events {@link Ledger#observe} enters as released: those the ledger holds already (a VM that
 * reported since is entered by its vmId), those the views show released (approved, started or over,
 * or Azure's word), those commands were sent for, and the fleet's events past their NotBefore.
 */
public final class ObservedReleases {
  private ObservedReleases() {}

  /**
   * The events to release now, each with who released it: the origin its entries have, or {@link
   * Ledger#OBSERVED} for a release the fleet saw but did not make.
   */
  static Map<String, String> of(Collection<LedgerEntry> entries, World w, Instant now) {
    // Each event the ledger holds, with who released it (entries are in key order).
    // By lower-cased id (event ids are case-insensitive), in hash maps: thousands of events.
    Map<String, String> originOf = new HashMap<>();
    Map<String, String> events = new LinkedHashMap<>();
    // Only the open events the views show released (approved, started or over): an open event
    // that is not, not in the ledger and not requested, is not entered (below).
    for (String e : w.releasedOpenEvents()) {
      if (e != null) {
        events.putIfAbsent(EventIds.lower(e), e);
      }
    }
    // And those past their NotBefore: Azure starts them then, approved or not, for every VM they
    // list, and a VM it reboots tells nothing until it is up again (it reports Started, or the
    // event gone, minutes later). Counted from then, as any release; an event of the fleet's VMs
    // only (an agent of the fleet reported it, known to the inventory or not: one it dropped a
    // moment ago still reboots; or Azure's word names a VM the inventory lists: another team's
    // event in the subscription counts for nothing, as its start does, Ledger.released). A
    // Terminate or a Preempt too: its VM is down in its group until it leaves the group's size
    // (LedgerEntry.next).
    Set<String> due = new HashSet<>();
    for (String e : w.dueOpenEvents(now)) {
      if (e != null && (!w.eventVms(e).isEmpty() || w.azureListsFleetVm(e))) {
        due.add(EventIds.lower(e));
        events.putIfAbsent(EventIds.lower(e), e);
      }
    }
    for (LedgerEntry e : entries) {
      String id = EventIds.lower(e.eventId());
      originOf.putIfAbsent(id, e.origin());
      events.putIfAbsent(id, e.eventId());
    }
    Set<String> requested = new HashSet<>();
    for (String e : w.requestedEvents()) {
      if (e != null) {
        String id = EventIds.lower(e);
        requested.add(id);
        events.putIfAbsent(id, e);
      }
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> ev : events.entrySet()) {
      String eventId = ev.getValue();
      // A Terminate or a Preempt the views show over: its VMs are gone (their parts vanish a
      // week after), or back (a Spot VM restarted after its eviction reports it gone; it missed
      // only its settle, if a step with it was lost). Entered again once its entries were
      // dropped, by the commands that went out for it or Azure's Completed, a deleted VM, unknown,
      // was counted by name in every group.
      boolean open = w.open(eventId);
      boolean goneOver = !open && gone(w.eventType(eventId));
      // Commands went out for it: released, even when the event already looks over (an agent
      // that restarted during the reboot reports it canceled), unless it is long over.
      boolean sent =
          requested.contains(ev.getKey())
              && !goneOver
              && (open || !closedBefore(eventId, w, now.minus(Ledger.KEEP_AFTER_BACK)));
      String origin = originOf.get(ev.getKey());
      if (origin != null
          || sent
          || due.contains(ev.getKey())
          || (!goneOver && released(eventId, w))) {
        out.put(eventId, origin == null ? Ledger.OBSERVED : origin);
      }
    }
    return out;
  }

  /**
   * Whether an event of this type removes its VMs rather than taking them down for a while
   * (Terminate deletes the VM; Preempt evicts a Spot VM, deleted or deallocated): such a VM counts
   * as down until it leaves its group's size (its agent silent, or the inventory no longer lists
   * it), as a VM gone for any other reason then counts nowhere ({@link EntryProgress#next}). Until
   * 2026-11-28 such an event past its NotBefore was not entered at all: a Spot VM evicted (and
   * deallocated, the default) stayed in its group's size for its agent's 15 minutes of silence,
   * down and counted nowhere, and the rollout released another VM of the group.
   */
  static boolean gone(String eventType) {
    return "Terminate".equalsIgnoreCase(eventType) || "Preempt".equalsIgnoreCase(eventType);
  }

  /**
   * Whether every VM the fleet knows that reported the event was done with it before {@code
   * instant} (reported by unknown VMs only: never).
   */
  private static boolean closedBefore(String eventId, World w, Instant instant) {
    Map<String, VmEventState> vms = w.eventVms(eventId);
    List<VmEventState> known = vms.values().stream().filter(s -> w.known(s.vmId())).toList();
    return vms.isEmpty()
        || (!known.isEmpty()
            && known.stream()
                .allMatch(s -> s.closed() && s.since() != null && s.since().isBefore(instant)));
  }

  /**
   * Whether the views show the event released for any VM (approved, started or over), or Azure's
   * central delivery says it started or completed.
   */
  static boolean released(String eventId, World w) {
    return released(w.eventVms(eventId).values()) || w.releasedByAzure(eventId);
  }

  /** Whether these VMs' states show their event released (approved, started or over). */
  public static boolean released(Collection<VmEventState> vms) {
    return vms.stream()
        .anyMatch(
            s ->
                "approved".equals(s.status())
                    || "started".equals(s.status())
                    || "completed".equals(s.status())
                    || ("inferred".equals(s.status())
                        && !"canceled".equals(s.guess())
                        && !s.vanished()));
  }
}
