package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Ledger;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rollouts task's side of {@link ViewsGate}: a tick while the views are behind steps nothing
 * (rollouts wait, policies decide nothing), and an operator's approval is refused while a rollout
 * is active, unless it overrides (with no rollout active there is no limit to hold). Said once in
 * the log when it starts and when it ends, and told to the metrics ({@link
 * TopologyObserver#rolloutsHeld}). A gate that throws holds, as if behind.
 */
final class ViewsHold {
  private static final Logger LOG = LoggerFactory.getLogger(ViewsHold.class);

  private final ViewsGate gate;
  private final TopologyObserver observer;
  private boolean held;

  ViewsHold(ViewsGate gate, TopologyObserver observer) {
    this.gate = gate;
    this.observer = observer;
  }

  /** Whether this tick waits for the views. */
  boolean holds() {
    return behind().isPresent();
  }

  /** The refusal of an operator's approval while the views are behind, or null. */
  ApprovalRequest refusal(ApprovalRequest r, Ledger ledger) {
    if (r.overrides() || !ledger.constrained()) {
      return null;
    }
    return behind()
        .map(
            why ->
                r.refused(
                    "the fleet's views here are behind ("
                        + why
                        + ") while a rollout is active, and cannot count every VM the event would"
                        + " release; approve again in a moment (with a new Idempotency-Key: this"
                        + " request stays refused)"))
        .orElse(null);
  }

  private Optional<String> behind() {
    Optional<String> why;
    try {
      why = gate.behind();
    } catch (RuntimeException e) {
      // Cannot tell: held, as if behind (a release on views of unknown age is what this prevents).
      why = Optional.of("cannot tell how far: " + e);
      if (!held) {
        LOG.warn("cannot tell how far behind the global views are", e);
      }
    }
    if (why.isPresent() != held) {
      held = why.isPresent();
      observer.rolloutsHeld(held);
      if (held) {
        LOG.warn("rollouts and policies held: the global views are behind ({})", why.get());
      } else {
        LOG.info("rollouts and policies go on: the global views caught up");
      }
    }
    return why;
  }
}
