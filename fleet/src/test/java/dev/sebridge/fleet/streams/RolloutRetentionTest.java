package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutActions;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a policy's rollout sheds ({@link RolloutRetention#shed}). */
class RolloutRetentionTest {
  static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

  /**
   * An event a policy's rollout holds that this instance's views do not hold is shed only once it
   * has been missing for ten minutes (the views forgot it after it closed), not at the first look
   * (the rollouts task moved to an instance whose global views are a moment behind: shed then, the
   * pending event left its rollout and ran at its NotBefore without it); a task that moves starts
   * counting again. An event the views hold, closed with no part, is shed at once as before.
   */
  @Test
  void anEventMissingFromTheViewsIsShedOnlyOnceMissingForTenMinutes() {
    OperatorApprovalTest.Fleet w = new OperatorApprovalTest.Fleet().closed("E0");
    assertThat(
            RolloutRetention.shed(
                    policyRollout("E0"),
                    w,
                    T0.minus(Duration.ofDays(30)),
                    T0,
                    new MissingEvents(),
                    new HashSet<>())
                .spec()
                .eventIds())
        .as("held closed by the views, with no part: shed at once")
        .isEmpty();
    Rollout r = policyRollout("E1");
    MissingEvents missing = new MissingEvents();
    Instant horizon = T0.minus(Duration.ofDays(30));

    Set<String> still = new HashSet<>();
    assertThat(RolloutRetention.shed(r, w, horizon, T0, missing, still).spec().eventIds())
        .as("missing at the first look: kept")
        .containsExactly("E1");
    assertThat(still).containsExactly("e1");
    missing.keepOnly(still);
    assertThat(
            RolloutRetention.shed(r, w, horizon, T0.plusSeconds(599), missing, new HashSet<>())
                .spec()
                .eventIds())
        .containsExactly("E1");
    MissingEvents moved = new MissingEvents();
    assertThat(
            RolloutRetention.shed(r, w, horizon, T0.plusSeconds(600), moved, new HashSet<>())
                .spec()
                .eventIds())
        .as("the task moved: its ten minutes start again")
        .containsExactly("E1");
    assertThat(
            RolloutRetention.shed(r, w, horizon, T0.plusSeconds(600), missing, new HashSet<>())
                .spec()
                .eventIds())
        .as("missing for ten minutes: the views forgot it")
        .isEmpty();
    missing.keepOnly(Set.of());
    assertThat(missing.size()).isZero();
  }

  private static Rollout policyRollout(String... events) {
    RolloutSpec spec =
        new RolloutSpec(
            List.of(events),
            "1",
            List.of("zone"),
            Duration.ZERO,
            Duration.ofMinutes(5),
            Duration.ofSeconds(30));
    return RolloutActions.apply(
        null,
        new RolloutCommand(
            "policy-40-redeploy-v1",
            RolloutCommand.CREATE,
            spec,
            null,
            null,
            "policy",
            "policy:40-redeploy",
            T0,
            "policy:40-redeploy@v1"),
        T0);
  }
}
