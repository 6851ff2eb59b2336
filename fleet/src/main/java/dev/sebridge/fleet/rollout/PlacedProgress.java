package dev.sebridge.fleet.rollout;

import java.time.Instant;
import java.util.Optional;

/**
 * How a rollout's VM without a report of its event (placed by Azure's inventory) moves on, a part
 * of {@link RolloutPlanner}'s step: by Azure's word and the ledger's rule, not an agent's.
 */
final class PlacedProgress {
  private PlacedProgress() {}

  /**
   * Moves on a VM without a report of its event (placed by Azure's inventory): by what Azure's
   * central delivery says of the event, or the VMs that reported it. No agent says it is back: it
   * is {@link Ledger#UNKNOWN_BACK_AFTER} after the event completed, as the ledger takes it, or once
   * its agent (a silent one) is heard from after that.
   */
  static RolloutVm observe(Rollout r, RolloutVm v, World w, Instant now) {
    Instant deadline = now.plus(r.spec().timeout());
    PlacedStatus status = PlacedStatus.of(v.eventId(), w);
    if (status == PlacedStatus.CANCELED && v.phase().equals(RolloutVm.PENDING)) {
      return v.phase(RolloutVm.CANCELED);
    }
    if (status == PlacedStatus.STARTED
        && (v.phase().equals(RolloutVm.PENDING) || v.phase().equals(RolloutVm.APPROVED))) {
      return v.started(now, deadline);
    }
    if ((status == PlacedStatus.COMPLETED || status == PlacedStatus.CANCELED)
        && !v.phase().equals(RolloutVm.COMPLETED)) {
      // (canceled after its release: taken as completed, as the ledger takes it)
      v = v.completed(now, deadline);
      // The fleet's own wait for a VM no agent says is back is not the VM's delay: its deadline
      // is at least that wait and the settle time past the completion.
      Instant waited = now.plus(Ledger.UNKNOWN_BACK_AFTER).plus(r.spec().settle());
      if (v.deadline() != null && v.deadline().isBefore(waited)) {
        v = v.deadline(waited);
      }
    }
    if (v.phase().equals(RolloutVm.COMPLETED)) {
      if (v.agentBackAt() == null) {
        Optional<Instant> heard = w.lastHeartbeat(v.vmId());
        if ((heard.isPresent() && heard.get().isAfter(v.completedAt()))
            || !now.isBefore(v.completedAt().plus(Ledger.UNKNOWN_BACK_AFTER))) {
          v = v.agentBack(now);
        }
      }
      if (v.agentBackAt() != null && !now.isBefore(v.agentBackAt().plus(r.spec().settle()))) {
        return v.back(now);
      }
    }
    return v;
  }

  /** Where an event is for a VM that did not report it. */
  enum PlacedStatus {
    SCHEDULED,
    STARTED,
    COMPLETED,
    CANCELED;

    /**
     * Over when the ledger takes it over for a VM known by name ({@link ListedVms#seenClosed}: the
     * view closed, and not by unknown VMs' word alone), canceled if Azure said so; started when
     * Azure says so or a VM the fleet knows reported it released; else scheduled.
     */
    static PlacedStatus of(String eventId, World w) {
      dev.sebridge.fleet.agentless.AzureEventStatus a = w.azureStatus(eventId);
      if (!w.resources(eventId).isEmpty() && ListedVms.seenClosed(eventId, w)) {
        return a == dev.sebridge.fleet.agentless.AzureEventStatus.CANCELED ? CANCELED : COMPLETED;
      }
      if (a == dev.sebridge.fleet.agentless.AzureEventStatus.STARTED
          || a == dev.sebridge.fleet.agentless.AzureEventStatus.COMPLETED) {
        return STARTED; // (Azure's Completed while the view is open: not over for the ledger)
      }
      boolean released =
          ObservedReleases.released(
              w.eventVms(eventId).values().stream().filter(s -> w.known(s.vmId())).toList());
      return released ? STARTED : SCHEDULED;
    }
  }
}
