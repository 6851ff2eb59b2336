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

  /**
   * An unknown VM may be a real one the inventory does not list yet: while its part is open the
   * event is, and the VMs the ledger counts by name stay counted.
   */
  @Test
  void anUnknownVmsOpenPartKeepsTheEventOpen() {
    EventView v =
        EventViews.apply(null, update("vm-1", "scheduled", "Reboot", List.of("a", "n"), -1), KNOWN);
    v = EventViews.apply(v, update("n-new", "started", "Reboot", List.of("a", "n"), -1), KNOWN);
    v = EventViews.apply(v, update("vm-1", "completed", "Reboot", List.of("a", "n"), -1), KNOWN);
    assertThat(v.open()).isTrue();
  }

  /**
   * An event first reported without DurationInSeconds (IMDS api-versions before 2020-07-01): its
   * view has no duration. This threw (a null unboxed) before, failing the event's stream task.
   */
  @Test
  void anEventFirstReportedWithoutADurationHasNone() {
    VmEventUpdate u = update("vm-1", "scheduled", "Reboot", List.of("a"), -1);
    ((ObjectNode) u.event()).remove("DurationInSeconds");
    assertThat(EventViews.apply(null, u).durationInSeconds()).isNull();
  }

  /** The first known report replaces what unknown ones set, a field it does not give included. */
  @Test
  void theFirstKnownReportReplacesEveryFieldAnUnknownOneSet() {
    EventView v =
        EventViews.apply(null, update("rogue", "scheduled", "Freeze", List.of("a"), 5), KNOWN);
    VmEventUpdate known = update("vm-1", "scheduled", "Reboot", List.of("a"), -1);
    ((ObjectNode) known.event()).remove("DurationInSeconds"); // an older IMDS api-version
    v = EventViews.apply(v, known, KNOWN);
    assertThat(v.durationInSeconds()).isNull();
    assertThat(v.eventType()).isEqualTo("Reboot");
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
