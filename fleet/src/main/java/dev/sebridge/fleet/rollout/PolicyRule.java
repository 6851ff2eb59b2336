package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Duration;
import java.util.List;

/**
 * One central policy rule: which events it matches and what the fleet does with them.
 *
 * @param name the rule's name (rules are tried in name order; the first match acts)
 * @param types event types it matches (empty: any)
 * @param source Platform or User (null: any)
 * @param scaleSets it matches when every VM of the event is in one of these (empty: any)
 * @param durationUnder it matches when 0 <= DurationInSeconds < this (null: any)
 * @param action {@code approve} at once, {@code rollout} with {@code rollout}, or {@code never}
 * @param rollout for rollout: how
 * @param dryRun true: the decision is recorded and shown, nothing is sent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PolicyRule(
    String name,
    List<String> types,
    String source,
    List<String> scaleSets,
    Duration durationUnder,
    String action,
    RolloutSpec rollout,
    boolean dryRun) {
  public static final String APPROVE = "approve";
  public static final String ROLLOUT = "rollout";
  public static final String NEVER = "never";

  public PolicyRule {
    types = types == null ? List.of() : List.copyOf(types);
    scaleSets = scaleSets == null ? List.of() : List.copyOf(scaleSets);
  }

  public boolean matches(EventView e) {
    if (!types.isEmpty() && types.stream().noneMatch(t -> t.equalsIgnoreCase(e.eventType()))) {
      return false;
    }
    if (source != null && !source.equalsIgnoreCase(e.eventSource())) {
      return false;
    }
    if (durationUnder != null) {
      Integer d = e.durationInSeconds();
      if (d == null || d < 0 || d >= durationUnder.toSeconds()) {
        return false;
      }
    }
    if (!scaleSets.isEmpty()) {
      if (e.vms().isEmpty()) {
        return false;
      }
      for (VmEventState v : e.vms().values()) {
        if (v.scaleSet() == null || !scaleSets.contains(v.scaleSet())) {
          return false;
        }
      }
    }
    return true;
  }

  /** What the rule says, for a command's reason and the page. */
  public String describe() {
    String what =
        switch (action) {
          case APPROVE -> "approve at once";
          case ROLLOUT ->
              "roll out "
                  + rollout.maxUnavailable()
                  + (rollout.groupBy().isEmpty()
                      ? ""
                      : " grouped by " + String.join(",", rollout.groupBy()));
          default -> "never approve";
        };
    return what + (dryRun ? " (dry run)" : "");
  }
}
