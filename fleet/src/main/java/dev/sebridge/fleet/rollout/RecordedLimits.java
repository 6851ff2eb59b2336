package dev.sebridge.fleet.rollout;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * A rollout's recorded group limits as a {@link RolloutPlanner} step uses them: lowered to what the
 * step's views make them (never raised), and the halt of an event that one group's limit can never
 * admit.
 */
public final class RecordedLimits {
  private RecordedLimits() {}

  /**
   * A recorded limit only ever goes down: what these views make it, when smaller, is recorded and
   * committed with the step. Otherwise a failover to views further behind (a group that shrank
   * since, shown larger) would take the larger limit again.
   */
  static void lower(Rollout r, World w, Map<String, Integer> limits) {
    limits.replaceAll(
        (g, recorded) ->
            g.equals(Ledger.UNKNOWN_GROUP)
                ? recorded
                : Math.min(
                    recorded, r.spec().limit(Math.max(1, w.groupSize(r.spec().groupBy(), g)))));
  }

  /**
   * The rollout with its recorded limits lowered as a step lowers them ({@link #lower}), and
   * nothing else changed: for a rollout the planner cannot step, which binds every release all the
   * same.
   */
  public static Rollout lowered(Rollout r, World w) {
    Map<String, Integer> limits = new TreeMap<>(r.groupLimits());
    lower(r, w, limits);
    return r.recording(limits);
  }

  /** An event with more pending VMs in one group than the group's limit can never be released. */
  static Rollout.Halt oversized(
      Map<String, Map<String, Integer>> units, Map<String, Integer> limits, Instant now) {
    for (Map.Entry<String, Map<String, Integer>> unit : units.entrySet()) {
      for (Map.Entry<String, Integer> g : unit.getValue().entrySet()) {
        int limit = limits.get(g.getKey());
        if (g.getValue() > limit) {
          return new Rollout.Halt(
              null,
              unit.getKey(),
              String.format(
                  "event %s would release %d VMs of group %s at once, more than its limit of %d:"
                      + " IMDS starts an approved event for every VM it lists. Skip the event"
                      + " (NotBefore or a manual approval will start it) or abort.",
                  unit.getKey(), g.getValue(), g.getKey(), limit),
              now); // (when: what a resume names, RolloutCommand.halt)
        }
      }
    }
    return null;
  }
}
