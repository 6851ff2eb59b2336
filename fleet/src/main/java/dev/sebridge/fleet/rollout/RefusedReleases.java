package dev.sebridge.fleet.rollout;

import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.model.VmEventState;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A rollout's releases its agents refused as {@code resources-changed} (Azure added a VM to the
 * event after the fleet counted it, and nothing was posted), a part of {@link RolloutPlanner}'s
 * step: which requests send their VMs back to pending ({@link RolloutVm#pendingAgain}), when the
 * event may be released again, and under which request id.
 */
final class RefusedReleases {
  /** How many times an event goes back to pending before its refusal halts instead. */
  static final int AGAIN_AT_MOST = 3;

  private RefusedReleases() {}

  /**
   * The requests an agent refused as {@code resources-changed} for a VM still waiting for its event
   * to start, of an event sent back to pending fewer than {@link #AGAIN_AT_MOST} times. Every VM of
   * the rollout such a request approved goes back to pending, those acknowledged for through the
   * Maintenance API included: released again, the event is counted with the VMs it lists then (the
   * ledger keeps the first release's entries meanwhile). Not a request of which a VM's result is
   * anything else (an agent restarted mid-command, a Maintenance API failure), or a VM the views
   * show the event approved or started for: the event may have been released, and such a result
   * halts the rollout ({@link VmProgress#failure}).
   */
  static Set<String> requests(Collection<RolloutVm> vms, World w) {
    // (the times of the event's VMs that went back most: a VM that joined the event later has
    // fewer)
    Map<String, Integer> times = new HashMap<>();
    Set<String> changed = new HashSet<>();
    Set<String> otherwise = new HashSet<>();
    for (RolloutVm v : vms) {
      if (v.requestId() == null || !v.phase().equals(RolloutVm.APPROVED)) {
        continue;
      }
      times.merge(v.requestId(), v.times(), Math::max);
      Optional<World.Result> r = VmProgress.result(v, w);
      if (r.isPresent() && !r.get().resourcesChanged()) {
        otherwise.add(v.requestId());
      } else if (r.isPresent() && !v.resultAcknowledged()) {
        changed.add(v.requestId());
      }
      VmEventState s = w.eventVms(v.eventId()).get(v.vmId());
      if (s != null && !"scheduled".equals(s.status())) {
        otherwise.add(v.requestId());
      }
    }
    changed.removeIf(id -> otherwise.contains(id) || times.get(id) >= AGAIN_AT_MOST);
    return changed;
  }

  /** The refused request an event's pending VMs went back from, or null: never refused. */
  static String refused(List<String> pending, Map<String, RolloutVm> vms) {
    return pending.stream()
        .map(k -> vms.get(k).requestId())
        .filter(Objects::nonNull)
        .max(Comparator.naturalOrder())
        .orElse(null);
  }

  /**
   * Whether an event refused under {@code refused} may be released again: the views list a VM in it
   * that the refused request did not count (the views hear of Azure's change through the agents'
   * reports, which can come after their refusals; released again before, its commands would name
   * the same VMs and be refused again). True when the refused request named no VMs.
   */
  static boolean changed(String eventId, String refused, World w) {
    List<String> before = w.refusedCounted(refused);
    if (before.isEmpty()) {
      return true;
    }
    return !dev.sebridge.fleet.model.ApprovalRequest.notCounted(
            before, ListedVms.counted(eventId, w))
        .isEmpty();
  }

  /**
   * The request id of an event's release again, made from the refused request's (a command id is
   * used once: the agents' replay caches would refuse the same ids). Deterministic, as a step run
   * again after a failover must make the same.
   */
  static String requestId(String refused) {
    return NameBasedUuid.v5(NameBasedUuid.SEBRIDGE_NAMESPACE, "fleet-rollout-again|" + refused)
        .toString();
  }
}
