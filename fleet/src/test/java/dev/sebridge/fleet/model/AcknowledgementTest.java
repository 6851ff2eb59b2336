package dev.sebridge.fleet.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.agentless.AzureEventStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which VMs of an event the Maintenance API approves it for: those no live agent can. */
class AcknowledgementTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  static final String ID =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/db"
          + "/providers/Microsoft.Maintenance/scheduledevents/E1";

  static EventView event(AzureEventStatus status, String resourceId) {
    return new EventView(
        "E1",
        "Reboot",
        "Platform",
        null,
        -1,
        "",
        List.of("web-1", "web-2", "db-1"),
        T0,
        T0,
        null,
        Map.of(
            "vm-1", part("vm-1", "web-1"),
            "vm-2", part("vm-2", "WEB-2")),
        new CentralReport(status, resourceId, List.of("web-1", "web-2", "db-1"), T0, T0),
        Source.AGENT);
  }

  static VmEventState part(String vmId, String name) {
    return new VmEventState(vmId, name, null, null, "scheduled", null, T0, null);
  }

  @Test
  void theVmsAzureListsThatNoLiveAgentReportedAreAcknowledged() {
    Set<String> live = Set.of("vm-1");
    Acknowledgement a = Acknowledgement.of(event(AzureEventStatus.SCHEDULED, ID), live::contains);
    assertThat(a.resourceId()).isEqualTo(ID);
    // vm-2's agent is silent: it cannot approve, so Azure is asked for it too.
    assertThat(a.vms()).containsExactly("web-2", "db-1");
    assertThat(Acknowledgement.vmKey("WEB-2")).isEqualTo("name:web-2");
  }

  @Test
  void nothingIsAcknowledgedWhenEveryVmHasALiveAgentOrAzureCannotTakeIt() {
    Set<String> all = Set.of("vm-1", "vm-2");
    EventView e = event(AzureEventStatus.SCHEDULED, ID);
    assertThat(
            Acknowledgement.of(
                e.withCentral(
                    new CentralReport(
                        AzureEventStatus.SCHEDULED, ID, List.of("web-1", "web-2"), T0, T0),
                    Source.AGENT),
                all::contains))
        .isNull();
    assertThat(Acknowledgement.of(event(AzureEventStatus.STARTED, ID), all::contains)).isNull();
    assertThat(Acknowledgement.of(event(AzureEventStatus.SCHEDULED, null), all::contains)).isNull();
    assertThat(Acknowledgement.of(e.withCentral(null, Source.AGENT), all::contains)).isNull();
  }
}
