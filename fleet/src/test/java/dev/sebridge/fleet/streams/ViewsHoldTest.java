package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutActions;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The rollouts task's hold while the views are behind: told to the metrics when it starts and ends,
 * a gate that throws holds, and an operator's approval is refused only while a rollout is active
 * and it does not override.
 */
class ViewsHoldTest {
  static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

  private final AtomicReference<Object> gate = new AtomicReference<>(Optional.empty());
  private final List<Boolean> told = new ArrayList<>();
  private final ViewsHold hold =
      new ViewsHold(
          () -> {
            if (gate.get() instanceof RuntimeException e) {
              throw e;
            }
            @SuppressWarnings("unchecked")
            Optional<String> why = (Optional<String>) gate.get();
            return why;
          },
          new TopologyObserver() {
            @Override
            public void rolloutsHeld(boolean held) {
              told.add(held);
            }
          });

  @Test
  void theMetricsAreToldWhenAHoldStartsAndEndsAndAGateThatThrowsHolds() {
    assertThat(hold.holds()).isFalse();
    gate.set(Optional.of("12000 records behind their topics"));
    assertThat(hold.holds()).isTrue();
    assertThat(hold.holds()).isTrue();
    gate.set(new IllegalStateException("no client"));
    assertThat(hold.holds()).isTrue();
    gate.set(Optional.empty());
    assertThat(hold.holds()).isFalse();
    assertThat(told).containsExactly(true, false);
  }

  @Test
  void anApprovalIsRefusedOnlyWhileARolloutIsActiveAndItDoesNotOverride() {
    gate.set(Optional.of("their topics not read for 9 s"));
    Ledger free = Ledger.empty();
    assertThat(hold.refusal(request(false), free)).as("no rollout: no limit to hold").isNull();
    Ledger bound = Ledger.empty();
    bound.constrain(rollout());
    assertThat(hold.refusal(request(true), bound)).as("overridden").isNull();
    ApprovalRequest refused = hold.refusal(request(false), bound);
    assertThat(refused).isNotNull();
    assertThat(refused.refusal())
        .contains("views here are behind (their topics not read for 9 s)")
        .contains("approve again in a moment");
    gate.set(Optional.empty());
    assertThat(hold.refusal(request(false), bound)).isNull();
  }

  private static ApprovalRequest request(boolean override) {
    return new ApprovalRequest(
        "req-1", "E-1", List.of("vm-1"), "now", "bob", T0, "api", override, null, null);
  }

  private static Rollout rollout() {
    return RolloutActions.apply(
        null,
        new RolloutCommand(
            "r",
            RolloutCommand.CREATE,
            new RolloutSpec(
                List.of("E-2"), "1", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "t",
            "alice",
            T0,
            "api"),
        T0);
  }
}
