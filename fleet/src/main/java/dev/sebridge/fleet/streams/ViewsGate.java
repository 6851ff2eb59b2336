package dev.sebridge.fleet.streams;

import java.util.Optional;

/**
 * Whether the global views the rollouts task decides on are too far behind their topics to release
 * anything now. What views behind have not applied they cannot count (a VM moved, a group that
 * shrank; docs/fleet.md, "Views behind"): while they are, rollouts and policies step nothing and an
 * operator's approval is refused while a rollout is active ({@link ViewsHold}).
 */
@FunctionalInterface
public interface ViewsGate {
  /** Why the views are too far behind now (said in the log and in a refusal), or empty. */
  Optional<String> behind();

  /** Never behind (tests that drive the topology by hand). */
  ViewsGate NONE = Optional::empty;
}
