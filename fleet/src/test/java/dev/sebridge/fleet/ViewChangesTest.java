package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.streams.FleetTopology;
import org.junit.jupiter.api.Test;

/** What the page's live stream counts as a change of a view. */
class ViewChangesTest {
  /**
   * A deleted key is a change of its view, as a written one is: an inventory entry Azure deleted
   * makes its silent VM unknown on the page, and the silent section must hear of it. Before, only
   * writes were counted, and such a page kept the old mark until something else changed.
   */
  @Test
  void aDeletionIsAChange() {
    ViewChanges c = new ViewChanges();
    c.viewChanged(FleetTopology.INVENTORY_VIEW);
    assertThat(c.version(FleetTopology.INVENTORY_VIEW)).isEqualTo(1);
    c.keyChanged(FleetTopology.INVENTORY_VIEW, "vm-1", "an entry"); // told by viewChanged
    assertThat(c.version(FleetTopology.INVENTORY_VIEW)).isEqualTo(1);
    c.keyChanged(FleetTopology.INVENTORY_VIEW, "vm-1", null);
    assertThat(c.version(FleetTopology.INVENTORY_VIEW)).isEqualTo(2);
    assertThat(c.version(FleetTopology.EVENTS_VIEW)).isZero();
  }
}
