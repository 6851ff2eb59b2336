package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.Optional;

/**
 * How a rollout's VM that reported its event moves on, a part of {@link RolloutPlanner}'s step: by
 * what its agent says of the event (a VM without a report: {@link PlacedProgress}), and when it
 * halts the rollout (an approval its agent did not accept, a VM not back in time).
 */
final class VmProgress {
  private VmProgress() {}

  /** Moves a VM on by what the fleet sees of it. */
  static RolloutVm observe(Rollout r, RolloutVm v, World w, Instant now) {
    if (v.done()) {
      return v;
    }
    VmEventState s = w.eventVms(v.eventId()).get(v.vmId());
    if (s == null) {
      return PlacedProgress.observe(r, v, w, now);
    }
    String status = s.status();
    Instant deadline = now.plus(r.spec().timeout());
    if ("canceled".equals(status) || ("inferred".equals(status) && "canceled".equals(s.guess()))) {
      return v.phase(RolloutVm.CANCELED);
    }
    if (s != null && s.vanished()) {
      // Nothing heard from it for fleet.vm-retention: as it was. Pending, its event waits for it
      // like any unreported VM (and halts naming it); released, it is not back until heard from.
      return v;
    }
    if ("started".equals(status)
        && (v.phase().equals(RolloutVm.PENDING) || v.phase().equals(RolloutVm.APPROVED))) {
      return refusedEarlier(v, w)
          ? v.started(now, deadline).withoutRequest()
          : v.started(now, deadline);
    }
    if ("approved".equals(status) && v.phase().equals(RolloutVm.PENDING)) {
      // someone else approved the event (another VM, the API): it is released all the same
      RolloutVm released = v.started(now, deadline).phase(RolloutVm.APPROVED);
      return refusedEarlier(v, w) ? released.withoutRequest() : released;
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

  /**
   * The result of the VM's approval when it was not accepted: its agent's, or the Maintenance API's
   * outcome under its name for a VM acknowledged for.
   */
  static Optional<World.Result> result(RolloutVm v, World w) {
    Optional<World.Result> result = w.unaccepted(v.requestId(), v.vmId());
    if (result.isEmpty() && v.name() != null) {
      // acknowledged for through Azure's Maintenance API: its outcome is under its name (only the
      // acknowledger writes a request's results so; the VM may have begun to report since)
      result =
          w.unaccepted(v.requestId(), dev.sebridge.fleet.model.Acknowledgement.vmKey(v.name()));
    }
    return result;
  }

  /**
   * Whether a pending VM still names the request its own agent refused as resources-changed (it
   * went back to pending): released by another path since, that refusal must not halt the rollout.
   * Any other result under it (another VM's agent that posted and then failed, a restart
   * mid-command) is kept, and halts it.
   */
  private static boolean refusedEarlier(RolloutVm v, World w) {
    return v.phase().equals(RolloutVm.PENDING)
        && v.requestId() != null
        && result(v, w).map(World.Result::resourcesChanged).orElse(false);
  }

  /** Why this VM halts the rollout, if it does. */
  static Rollout.Halt failure(RolloutVm v, World w, Instant now) {
    if (v.requestId() != null && !v.resultAcknowledged() && v.phase().equals(RolloutVm.APPROVED)) {
      Optional<World.Result> result = result(v, w);
      if (result.isPresent() && v.byPlatform() && result.get().resourcesChanged()) {
        // Released by another path, and its own agent refused the rollout's request (nothing
        // posted; the refusal arrived after the release was seen): nothing to halt for.
        result = Optional.empty();
      }
      if (result.isPresent()) {
        return new Rollout.Halt(
            v.vmId(),
            v.eventId(),
            "approval " + result.get().outcome() + " on " + label(v) + ": " + result.get().reason(),
            now);
      }
    }
    if (v.phase().equals(RolloutVm.PENDING)
        && v.times() > 0
        && v.deadline() != null
        && now.isAfter(v.deadline())) {
      return new Rollout.Halt(
          v.vmId(),
          v.eventId(),
          "agents (or the acknowledger) refused event "
              + v.eventId()
              + " for a VM Azure added to it (resources-changed), and the views have not listed"
              + " one the refused approval did not count since: skip the event or abort",
          now);
    }
    if (v.unavailable() && v.deadline() != null && now.isAfter(v.deadline())) {
      return new Rollout.Halt(
          v.vmId(), v.eventId(), label(v) + " is not back in time (still " + v.phase() + ")", now);
    }
    return null;
  }

  private static String label(RolloutVm v) {
    return v.name() == null ? v.vmId() : v.name() + " (" + v.vmId() + ")";
  }
}
