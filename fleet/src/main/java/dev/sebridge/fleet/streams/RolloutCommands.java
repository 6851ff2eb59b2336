package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutActions;
import dev.sebridge.fleet.rollout.RolloutCommand;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's command to a rollout (create, resume, skip, abort) taken into the rollouts task's
 * state ({@link RolloutActions}) and logged. While the task replays the rollouts topic a command
 * changes the rollout's state and nothing else: what a later record aborts is never stepped in
 * between.
 */
final class RolloutCommands {
  // Logged under the processor's name, as before this was a class of its own.
  private static final Logger LOG = LoggerFactory.getLogger(RolloutProcessor.class);

  private RolloutCommands() {}

  static void apply(RolloutStore rollouts, RolloutCommand c, Instant now) {
    Rollout before = rollouts.get(c.rolloutId());
    Rollout after = RolloutActions.apply(before, c, now);
    if (after == null || after.equals(before)) {
      return;
    }
    rollouts.put(after);
    if (before != null
        && before.halt() != null
        && before.halt().equals(after.halt())
        && c.action().equals(RolloutCommand.RESUME)) {
      LOG.warn(
          "rollout {}: resume by {} not applied: it resumed the halt of {}, halted since {}",
          c.rolloutId(),
          c.by(),
          c.halt(),
          before.halt().at());
    } else {
      LOG.info("rollout {}: {} by {} ({})", c.rolloutId(), c.action(), c.by(), c.reason());
    }
  }
}
