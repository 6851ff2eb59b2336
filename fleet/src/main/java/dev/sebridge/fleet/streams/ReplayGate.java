package dev.sebridge.fleet.streams;

/**
 * Whether the rollouts task has read the rollouts topic up to where it stood when the task started.
 * A fresh {@code fleet.application-id} (or one whose offsets were reset) reads the topic from its
 * beginning: a rollout created a year ago is created again, and its abort comes some records later.
 * Until the task has caught up, rollouts and policies take every command into their state but step
 * nothing and release nothing, so a replay never releases what a later record aborted
 * (docs/fleet.md, "Replays").
 */
@FunctionalInterface
public interface ReplayGate {
  /** A check for one run of the task, made when the task starts (is assigned). */
  Check start();

  /** One task's check. */
  @FunctionalInterface
  interface Check {
    /**
     * True once the task has processed (and committed) every record the topic held when the task
     * started. Asked every tick until true. Throws when it cannot tell yet (asked again).
     */
    boolean caughtUp();
  }

  /** Nothing to replay (tests that pipe records by hand). */
  ReplayGate NONE = () -> () -> true;
}
