package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reports of one event from different VMs reach its view in any order: an agent's outbox delivers
 * what it kept during an outage late. The event's fields are the newest report's, whatever came
 * last; each VM's own part is its own reports', in their order.
 */
class EventViewsLateReportTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  static final Instant NOT_BEFORE = T0.plusSeconds(3600);

  static VmEventUpdate report(
      String vmId, int second, String status, List<String> resources, Instant notBefore) {
    return new VmEventUpdate(
        "e-1",
        vmId,
        vmId,
        "1",
        null,
        T0.plusSeconds(second),
        status.equals("Started") ? "started" : "scheduled",
        false,
        AgentEnvelopes.imdsEvent("E-1", "Reboot", status, resources, notBefore),
        null);
  }

  /**
   * An inferred completion (the agent saw the event gone after an outage), carrying the event as
   * the agent last saw it.
   */
  static VmEventUpdate removal(String vmId, int second, List<String> resources) {
    return new VmEventUpdate(
        "e-1",
        vmId,
        vmId,
        "1",
        null,
        T0.plusSeconds(second),
        "completed",
        true,
        AgentEnvelopes.imdsEvent("E-1", "Reboot", "Scheduled", resources, NOT_BEFORE),
        null);
  }

  /** Azure added a VM (one without an agent) to the event; a report from before says otherwise. */
  @Test
  void aLateReportDoesNotPutBackTheResourcesANewerOneGave() {
    EventView v = EventViews.apply(null, report("vm-1", 10, "Scheduled", names(), NOT_BEFORE));
    v = EventViews.apply(v, report("vm-2", 5, "Scheduled", List.of("vm-1", "vm-2"), NOT_BEFORE));
    assertThat(v.resources()).containsExactly("vm-1", "vm-2", "db-1");
    assertThat(v.vms()).containsKeys("vm-1", "vm-2"); // its own part all the same
    assertThat(v.reportedAt()).isEqualTo(T0.plusSeconds(10));
  }

  /** Azure brought the event forward; a report from before still has the later NotBefore. */
  @Test
  void aLateReportDoesNotPutBackANotBeforeAzureBroughtForward() {
    Instant sooner = NOT_BEFORE.minusSeconds(1800);
    EventView v = EventViews.apply(null, report("vm-1", 10, "Scheduled", names(), sooner));
    v = EventViews.apply(v, report("vm-2", 5, "Scheduled", names(), NOT_BEFORE));
    assertThat(v.notBefore()).isEqualTo(sooner);
  }

  @Test
  void aNewerReportChangesTheEventsFieldsWhateverItsVm() {
    EventView v =
        EventViews.apply(null, report("vm-1", 5, "Scheduled", List.of("vm-1", "vm-2"), NOT_BEFORE));
    v = EventViews.apply(v, report("vm-2", 10, "Started", names(), null));
    assertThat(v.resources()).containsExactly("vm-1", "vm-2", "db-1");
    assertThat(v.notBefore()).isNull();
    assertThat(v.reportedAt()).isEqualTo(T0.plusSeconds(10));
  }

  /** A view written before views kept the time: the next report's fields, as before. */
  @Test
  void aViewWithoutTheTimeTakesTheNextReportsFields() throws Exception {
    EventView v = EventViews.apply(null, report("vm-1", 10, "Scheduled", names(), NOT_BEFORE));
    String json = new String(new JsonSerde<>(EventView.class).serializer().serialize("t", v));
    assertThat(json).contains("\"reportedAt\"");
    EventView old =
        new JsonSerde<>(EventView.class)
            .deserializer()
            .deserialize("t", json.replaceAll(",\"reportedAt\":\"[^\"]*\"", "").getBytes());
    assertThat(old.reportedAt()).isNull();
    v = EventViews.apply(old, report("vm-2", 5, "Scheduled", List.of("vm-1"), NOT_BEFORE));
    assertThat(v.resources()).containsExactly("vm-1");
    assertThat(v.reportedAt()).isEqualTo(T0.plusSeconds(5));
  }

  /**
   * A removal carries the event as its agent last saw it, stamped when it saw it gone (an inferred
   * one after an outage, hours later): it does not put back what a report before it said.
   */
  @Test
  void aRemovalDoesNotPutBackTheFieldsItsAgentLastSaw() {
    EventView v =
        EventViews.apply(null, report("vm-1", 0, "Scheduled", List.of("vm-1", "vm-2"), NOT_BEFORE));
    v = EventViews.apply(v, report("vm-2", 50, "Scheduled", names(), NOT_BEFORE));
    v = EventViews.apply(v, removal("vm-1", 100, List.of("vm-1", "vm-2")));
    assertThat(v.resources()).containsExactly("vm-1", "vm-2", "db-1");
    assertThat(v.vms().get("vm-1").status()).isEqualTo("inferred");
    // Nor does it hold back a report of before it that comes after it.
    v = EventViews.apply(v, report("vm-2", 60, "Scheduled", List.of("vm-2", "db-1"), NOT_BEFORE));
    assertThat(v.resources()).containsExactly("vm-2", "db-1");
  }

  /** The first report of an event a removal: its fields are all there is, until a report. */
  @Test
  void aRemovalFirstGivesTheFieldsUntilAReport() {
    EventView v = EventViews.apply(null, removal("vm-1", 100, names()));
    assertThat(v.resources()).containsExactly("vm-1", "vm-2", "db-1");
    assertThat(v.reportedAt()).isNull();
    v = EventViews.apply(v, report("vm-2", 5, "Scheduled", List.of("vm-2"), NOT_BEFORE));
    assertThat(v.resources()).containsExactly("vm-2");
  }

  /**
   * An agent whose clock runs ahead (or is broken) does not hold the event's fields against every
   * newer report until its time comes: a time later than the service's clock counts as now.
   */
  @Test
  void aReportFromTheFutureCountsAsNow() {
    Instant now = T0.plusSeconds(20);
    VmEventUpdate ahead =
        new VmEventUpdate(
            "e-1",
            "vm-1",
            "vm-1",
            "1",
            null,
            Instant.parse("2099-01-01T00:00:00Z"),
            "scheduled",
            false,
            AgentEnvelopes.imdsEvent(
                "E-1", "Reboot", "Scheduled", List.of("vm-1", "vm-2"), NOT_BEFORE),
            null);
    EventView v = EventViews.apply(null, ahead, vm -> true, now);
    assertThat(v.reportedAt()).isEqualTo(now);
    v = EventViews.apply(v, report("vm-2", 30, "Scheduled", names(), NOT_BEFORE), vm -> true, now);
    assertThat(v.resources()).containsExactly("vm-1", "vm-2", "db-1");
  }

  /** A late report is still the first the view heard of the event, if it is. */
  @Test
  void aLateReportIsStillTheFirstSeen() {
    EventView v = EventViews.apply(null, report("vm-1", 10, "Scheduled", names(), NOT_BEFORE));
    v = EventViews.apply(v, report("vm-2", 5, "Scheduled", names(), NOT_BEFORE));
    assertThat(v.firstSeenAt()).isEqualTo(T0.plusSeconds(5));
  }

  /** Azure's word and the event closing keep the time of the report the fields came from. */
  @Test
  void closingKeepsTheTime() {
    EventView v = EventViews.apply(null, report("vm-1", 10, "Scheduled", names(), NOT_BEFORE));
    assertThat(v.closedAt(T0.plusSeconds(20)).reportedAt()).isEqualTo(T0.plusSeconds(10));
  }

  private static List<String> names() {
    return List.of("vm-1", "vm-2", "db-1");
  }
}
