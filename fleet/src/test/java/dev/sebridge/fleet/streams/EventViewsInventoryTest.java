package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** What an unknown VM's report may change of an event a known VM reports: its own part only. */
class EventViewsInventoryTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  static final Predicate<String> KNOWN = Set.of("vm-1")::contains;

  static VmEventUpdate update(
      String vmId, String transition, String type, List<String> resources, int duration) {
    ObjectNode e =
        AgentEnvelopes.imdsEvent("E-1", type, "Scheduled", resources, T0.plusSeconds(3600));
    e.put("DurationInSeconds", duration);
    return new VmEventUpdate("e-1", vmId, vmId, "1", null, T0, transition, false, e, null);
  }

  @Test
  void anUnknownReportChangesNeitherTheEventsFieldsNorItsResources() {
    EventView v =
        EventViews.apply(
            null, update("vm-1", "scheduled", "Reboot", List.of("a", "b", "c"), -1), KNOWN);
    v = EventViews.apply(v, update("rogue", "scheduled", "Freeze", List.of("a"), 5), KNOWN);
    assertThat(v.eventType()).isEqualTo("Reboot");
    assertThat(v.durationInSeconds()).isEqualTo(-1);
    assertThat(v.resources()).containsExactly("a", "b", "c");
    assertThat(v.vms()).containsKeys("vm-1", "rogue");
  }

  @Test
  void anEventIsClosedWhenItsKnownVmsAreDoneWhateverAnUnknownOneSays() {
    EventView v =
        EventViews.apply(null, update("vm-1", "scheduled", "Reboot", List.of("a"), -1), KNOWN);
    v = EventViews.apply(v, update("rogue", "scheduled", "Reboot", List.of("a"), -1), KNOWN);
    v = EventViews.apply(v, update("vm-1", "completed", "Reboot", List.of("a"), -1), KNOWN);
    assertThat(v.open()).isFalse();
  }

  @Test
  void beforeAnyKnownVmReportsAnUnknownReportIsAllThereIsAndAKnownOneReplacesIt() {
    EventView v =
        EventViews.apply(null, update("rogue", "scheduled", "Freeze", List.of("a"), 5), KNOWN);
    assertThat(v.eventType()).isEqualTo("Freeze");
    v = EventViews.apply(v, update("vm-1", "scheduled", "Reboot", List.of("a", "b"), -1), KNOWN);
    assertThat(v.eventType()).isEqualTo("Reboot");
    assertThat(v.resources()).containsExactly("a", "b");
  }
}
