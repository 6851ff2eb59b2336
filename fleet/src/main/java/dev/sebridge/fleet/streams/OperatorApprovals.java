package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.Rollout;
import java.time.Instant;
import java.util.List;

/**
 * The rollouts task's part in an operator's approval (API, page): decided against the fleet-wide
 * ledger as of now ({@link OperatorApproval#decide}), refused while the views are too far behind
 * and a rollout is active ({@link ViewsHold}), and, in the same commit as the decision, the ledger
 * written and every active rollout saved with the limits the decision's checks met ({@link
 * Ledger#recorded}: a failover to views behind these does not take larger ones).
 */
final class OperatorApprovals {
  private final GlobalWorld world;
  private final LedgerStore ledgerStore;
  private final RolloutStore rollouts;
  private final ViewsHold hold;

  OperatorApprovals(
      GlobalWorld world, LedgerStore ledgerStore, RolloutStore rollouts, ViewsHold hold) {
    this.world = world;
    this.ledgerStore = ledgerStore;
    this.rollouts = rollouts;
    this.hold = hold;
  }

  /** The request admitted or refused, or null when it was decided before (its audit stands). */
  ApprovalRequest decide(ApprovalRequest r, Instant now) {
    if (world.audited(r.requestId())) {
      // Decided before (a replay from a fresh application id, or the same record again after a
      // failover): the audit record stands, nothing is decided or written twice.
      return null;
    }
    world.newStep(now);
    List<Rollout> active = rollouts.active();
    Ledger ledger = ledgerStore.current(world, now, active);
    ApprovalRequest held = hold.refusal(r, ledger);
    ApprovalRequest out = held != null ? held : OperatorApproval.decide(r, ledger, world, now);
    ledgerStore.persist(ledger);
    for (Rollout rollout : active) {
      Rollout recorded = ledger.recorded(rollout);
      if (recorded != rollout) {
        rollouts.put(recorded);
      }
    }
    return out;
  }
}
