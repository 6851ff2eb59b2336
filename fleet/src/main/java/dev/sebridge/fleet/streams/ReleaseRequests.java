package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPlanner;
import java.time.Instant;

/**
 * The approval request a rollout's release sends ({@link RolloutPlanner.Release}), audited and
 * signed like any other by the request processor: its reason names the rollout (or the policy) and
 * the wave.
 */
final class ReleaseRequests {
  private ReleaseRequests() {}

  /**
   * @param resource the event's ARM id as Azure's central delivery gave it, or null: VMs without a
   *     report of the event are acknowledged for through Azure's Maintenance API only with it (the
   *     planner names them only when this instance acknowledges and Azure gave the ARM id)
   */
  static ApprovalRequest of(
      Rollout r, RolloutPlanner.Release release, String resource, Instant now) {
    String reason =
        (r.origin().startsWith("policy:") ? r.origin().substring(7) : "rollout " + r.id())
            + " wave "
            + release.wave()
            + ": "
            + r.reason();
    return new ApprovalRequest(
        release.requestId(),
        release.eventId(),
        release.vmIds(),
        reason,
        r.requestedBy(),
        now,
        "rollout:" + r.id(),
        null,
        null,
        null,
        release.acknowledge().isEmpty() || resource == null
            ? null
            : new Acknowledgement(resource, release.acknowledge()));
  }
}
