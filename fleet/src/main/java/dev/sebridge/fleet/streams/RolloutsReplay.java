package dev.sebridge.fleet.streams;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one run of the rollouts task has read the rollouts topic up to where it stood when the
 * task started ({@link ReplayGate}): asked of the brokers until it has, then never again for this
 * task. Until then the task steps and releases nothing; the metrics are told ({@link
 * TopologyObserver#rolloutsReplaying}), and the log says so once.
 */
final class RolloutsReplay {
  private static final Logger LOG = LoggerFactory.getLogger(RolloutProcessor.class);

  private final ReplayGate.Check check;
  private final TopologyObserver observer;
  private boolean caughtUp;
  private boolean logged;

  RolloutsReplay(ReplayGate.Check check, TopologyObserver observer) {
    this.check = check;
    this.observer = observer;
  }

  boolean caughtUp() {
    if (!caughtUp) {
      try {
        caughtUp = check.caughtUp();
      } catch (RuntimeException e) {
        LOG.warn("rollouts: cannot tell whether the rollouts topic is caught up: {}", e.toString());
        return false;
      }
      observer.rolloutsReplaying(!caughtUp);
      if (caughtUp) {
        LOG.info("rollouts: caught up with the rollouts topic; stepping rollouts and policies");
      } else if (!logged) {
        logged = true;
        LOG.info(
            "rollouts: reading the rollouts topic up to where it stood when this task started;"
                + " nothing is stepped or released until then");
      }
    }
    return caughtUp;
  }
}
