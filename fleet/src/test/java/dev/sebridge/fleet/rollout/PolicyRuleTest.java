package dev.sebridge.fleet.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A rule's scale sets match an event when every VM of it is in one of them. */
class PolicyRuleTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  static final PolicyRule BATCH =
      new PolicyRule(
          "10-batch", List.of(), null, List.of("batch"), null, PolicyRule.APPROVE, null, false);

  static EventView event(List<String> resources, VmEventState... parts) {
    Map<String, VmEventState> vms = new java.util.TreeMap<>();
    for (VmEventState p : parts) {
      vms.put(p.vmId(), p);
    }
    return new EventView("E-1", "Reboot", "Platform", T0, -1, "", resources, T0, T0, null, vms);
  }

  static VmEventState part(String vmId, String name, String scaleSet) {
    return new VmEventState(vmId, name, "1", scaleSet, "scheduled", null, T0, null);
  }

  @Test
  void everyListedVmReportedInTheScaleSetMatches() {
    assertThat(
            BATCH.matches(
                event(
                    List.of("b-1", "B-2"), part("v1", "b-1", "batch"), part("v2", "b-2", "batch"))))
        .isTrue();
  }

  @Test
  void aVmInAnotherScaleSetDoesNotMatch() {
    assertThat(
            BATCH.matches(
                event(List.of("b-1", "w-1"), part("v1", "b-1", "batch"), part("v2", "w-1", "web"))))
        .isFalse();
  }

  @Test
  void aPartWithoutAScaleSetDoesNotMatch() {
    // With an inventory, an unknown VM's part carries no scale set, whatever it claimed.
    assertThat(BATCH.matches(event(List.of("web-7"), part("rogue", "web-7", null)))).isFalse();
  }
}
