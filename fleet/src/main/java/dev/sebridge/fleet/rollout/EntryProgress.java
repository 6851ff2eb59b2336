package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.Optional;

/**
 * How a {@link LedgerEntry} moves on as the views change (a step's {@link Ledger#observe}):
 * completed, back, reopened, or taken for over by the hour's rule; a VM without an agent by what
 * Azure and the clock say. The states are the entry's fields; this is the rule between them.
 */
final class EntryProgress {
  private EntryProgress() {}

  /** The entry after what the views show now. */
  static LedgerEntry next(LedgerEntry entry, World w, Instant now) {
    LedgerEntry e = entry;
    if (e.vmId() == null || e.placed()) {
      // Its event's NotBefore, kept: the view's is empty once the event started.
      Instant seen = w.notBefore(e.eventId()).orElse(null);
      if (seen != null && !seen.equals(e.notBefore())) {
        e = e.withNotBefore(seen);
      }
    }
    if (e.placed() && w.known(e.vmId())) {
      VmEventState s = w.eventVms(e.eventId()).get(e.vmId());
      if (s != null && !s.vanished()) {
        // Its agent reported the event since: heard from, as any VM that reported it is.
        e = e.reported();
      }
    }
    if (e.placed() && ObservedReleases.gone(w.eventType(e.eventId()))) {
      boolean listed = w.inventoryLists(e.vmId());
      if (e.backAt() == null && !listed) {
        // A Terminate or a Preempt deleted it: the inventory no longer lists it, and it is out of
        // its group (a Spot VM deallocated is still listed, and counts as any VM without an
        // agent).
        return (e.completedAt() == null ? e.completed(now) : e).back(now);
      }
      if (e.backAt() != null
          && listed
          && w.open(e.eventId())
          && !ListedVms.seenClosed(e.eventId(), w)
          && now.isBefore(countsFrom(e).plus(Ledger.UNKNOWN_AT_MOST))) {
        // Listed again while its event is open and within its hour (a refresh that missed it
        // once): not deleted, and the event may not have run; down again, as the rule below has
        // it for a VM without an agent (which then keeps it down: no step reopens and closes it).
        e = e.reopened();
      }
    }
    if (e.vmId() == null || e.placed()) {
      // Azure says the event is running: it counts, whatever the views or the clock say, and
      // again if it was taken for back before (an approved or acknowledged event may start hours
      // later, after the host's other tenants; a view closed by an agent's inferred "canceled").
      // (An agent's "started" is not enough: a VM deleted mid-event reports it for good.)
      if (w.startedByAzure(e.eventId())) {
        return e.backAt() == null ? e : e.reopened();
      }
      // No agent to hear from: back a while after the fleet sees the event closed, and at the
      // latest an hour after the later of its release and its event's NotBefore, the last one seen
      // (Azure starts an event at NotBefore whatever became of an approval, hours after it may be;
      // an event can stay open for good when a VM it lists is deleted mid-event, and must not hold
      // a group forever).
      if (e.backAt() != null) {
        return e;
      }
      if (ListedVms.seenClosed(e.eventId(), w)) {
        return e.completed(now).back(now.plus(Ledger.UNKNOWN_BACK_AFTER));
      }
      return now.isBefore(countsFrom(e).plus(Ledger.UNKNOWN_AT_MOST))
          ? e
          : e.completed(now).back(now);
    }
    if (ObservedReleases.gone(w.eventType(e.eventId()))) {
      boolean inSize = w.inGroupSize(e.vmId());
      if (e.backAt() == null && !inSize) {
        // A Terminate or a Preempt took it out of the fleet (deleted, or a Spot VM deallocated):
        // out of its group's size now (its agent silent, or the inventory no longer lists it), it
        // counts there no more, as a VM gone for any other reason does not. (Never heard from
        // again, it held its group's room for the ledger's 30 days.)
        return (e.completedAt() == null ? e.completed(now) : e).back(now);
      }
      VmEventState own = w.eventVms(e.eventId()).get(e.vmId());
      if (e.backAt() != null && inSize && w.open(e.eventId()) && (own == null || !own.closed())) {
        // In its group's size again while its part of the event is open (the inventory missed it
        // once, its agent was slow for a while): the event has not run its course for it, and it
        // counts again. (Its part closed, it is back as any VM: a Spot VM restarted after its
        // eviction while the event is open for others.)
        e = e.reopened();
      }
    }
    VmEventState s = w.eventVms(e.eventId()).get(e.vmId());
    // "canceled" (or inferred as canceled) for a VM of a released event is not trusted to mean
    // no impact: an agent that restarted during an early reboot guesses canceled. Like a
    // completion, it needs the agent heard from afterwards.
    if (e.completedAt() == null) {
      if (s != null && s.closed() && !s.vanished()) {
        // (vanished says nothing of the VM: it counts until heard from, or KEEP_AT_MOST)
        e = e.completed(s.since() == null ? now : s.since());
      } else if (s == null && !w.open(e.eventId()) && overWithoutItsPart(e, w, now)) {
        e = e.completed(now); // the event is closed, or gone from the view
      }
    }
    if (e.completedAt() != null && e.backAt() == null) {
      Optional<Instant> heard = w.lastHeartbeat(e.vmId());
      // A vmId the inventory does not know (any more) is never taken for back.
      if (heard.isPresent() && heard.get().isAfter(e.completedAt()) && w.known(e.vmId())) {
        e = e.back(now);
      }
    }
    return e;
  }

  /**
   * Whether the views say the entry's event is over for its VM, which has no part in the event in
   * them. An entry made from the VM's part (it has a name: its report, or its by-name entry merged
   * when it reported) finds views without it behind, whatever they show of the others: an event's
   * view never drops a VM's part (only the whole view goes, by retention). Views the rollouts task
   * moved to may stop between another VM's part closing the event and this VM's first report
   * opening it again: taken for over then, the VM was back at its next heartbeat, before the event
   * ran for it. Such an entry is over without its part only by the hour rule. An entry by vmId
   * without a name (an operator named the VM while the views did not show the event) has never seen
   * its part: {@link #overByTheViews}.
   */
  static boolean overWithoutItsPart(LedgerEntry e, World w, Instant now) {
    return e.name() == null
        ? overByTheViews(e, w, now)
        : !now.isBefore(countsFrom(e).plus(Ledger.UNKNOWN_AT_MOST));
  }

  /**
   * Whether the views say the entry's event is over, for a VM that has no part in it: they hold it
   * closed, or they do not hold it and {@link Ledger#UNKNOWN_AT_MOST} passed since the later of its
   * release and its NotBefore (forgotten after it closed). Within that, an event the views do not
   * hold is one they have not caught up with (the rollouts task moved to an instance whose global
   * views are behind): taken for over, its VMs were back at their next heartbeat, before the event
   * ran (held for the host's other tenants, or its NotBefore), and their groups' room released to
   * others.
   */
  static boolean overByTheViews(LedgerEntry e, World w, Instant now) {
    return w.viewed(e.eventId()) || !now.isBefore(countsFrom(e).plus(Ledger.UNKNOWN_AT_MOST));
  }

  /**
   * Where a VM without an agent's hour starts: the later of its release and its event's NotBefore,
   * the last seen.
   */
  static Instant countsFrom(LedgerEntry e) {
    return e.notBefore() != null && e.notBefore().isAfter(e.releasedAt())
        ? e.notBefore()
        : e.releasedAt();
  }
}
