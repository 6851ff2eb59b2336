package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import org.junit.jupiter.api.Test;

/** The tallies follow each key's newest value: silent agents in key order, open events counted. */
class ViewTalliesTest {
  static VmView silent(String vmId, boolean silent) {
    return new VmView(
        vmId, null, null, null, null, null, null, null, null, null, null, null, null, null, silent,
        null, null);
  }

  static EventView event(boolean open) {
    return new EventView(
        "e",
        "Reboot",
        "Platform",
        null,
        null,
        null,
        null,
        null,
        null,
        open ? null : java.time.Instant.parse("2026-11-26T10:00:00Z"),
        null);
  }

  @Test
  void silentAgentsAndOpenEventsFollowTheNewestValueOfEachKey() {
    ViewTallies t = new ViewTallies();
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-c", silent("vm-c", true));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", true));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-b", silent("vm-b", false));
    assertThat(t.firstSilent(1)).containsExactly("vm-a");
    assertThat(t.firstSilent(10)).containsExactly("vm-a", "vm-c");
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", false)); // heard again
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-c", null); // view dropped
    assertThat(t.silentCount()).isZero();

    t.keyChanged(FleetTopology.EVENTS_VIEW, "e1", event(true));
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e2", event(true));
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e1", event(false)); // closed, kept a while
    assertThat(t.openEvents()).isEqualTo(1);
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e2", null);
    assertThat(t.openEvents()).isZero();
    // other views are not counted
    t.keyChanged(FleetTopology.REQUESTS_VIEW, "r1", event(true));
    assertThat(t.openEvents()).isZero();
  }
}
