package dev.sebridge.fleet.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The page's coverage lists come from the same state as the counts, so they always agree: the first
 * VMs without an agent and the first unknown VMs, in key order, are exactly those the counts count.
 */
class CoverageTest {
  static InventoryVm listed(String vmId) {
    return new InventoryVm(vmId, null, vmId, null, null, null, null, null, null, Map.of());
  }

  @Test
  void theListsAreTheCountedVmsInKeyOrder() {
    Coverage c = new Coverage();
    for (String id : List.of("c", "a", "b")) {
      c.keyChanged(FleetTopology.INVENTORY_VIEW, id, listed(id));
    }
    for (String id : List.of("b", "e", "d", "C")) {
      c.keyChanged(FleetTopology.VMS_VIEW, id, VmView.unknown(id));
    }
    assertThat(c.counts()).isEqualTo(new Coverage.Counts(3, 1, 0, 2, 3));
    assertThat(c.firstWithoutAgent(1)).containsExactly("a");
    assertThat(c.firstWithoutAgent(20)).containsExactly("a", "c");
    // "C" (an upper-case spelling of the listed "c") is another, unknown VM
    assertThat(c.firstUnknown(2)).containsExactly("C", "d");
    assertThat(c.unknown("d")).isTrue();
    assertThat(c.unknown("b")).isFalse();
    assertThat(c.unknown("a")).isFalse();

    // the inventory now lists d: no longer unknown, at once
    c.keyChanged(FleetTopology.INVENTORY_VIEW, "d", listed("d"));
    assertThat(c.unknown("d")).isFalse();
    assertThat(c.firstUnknown(20)).containsExactly("C", "e");
  }

  @Test
  void theListsAndCountsAreWhatTheChangesLeftWhateverTheirOrder() {
    Coverage c = new Coverage();
    Random random = new Random(28);
    // The truth: what the inventory lists and which views exist, as the changes left them.
    java.util.Set<String> inInventory = new java.util.TreeSet<>();
    java.util.Set<String> withView = new java.util.TreeSet<>();
    for (int step = 0; step < 20_000; step++) {
      String id = Integer.toString(random.nextInt(300));
      switch (random.nextInt(4)) {
        case 0 -> {
          c.keyChanged(FleetTopology.INVENTORY_VIEW, id, listed(id));
          inInventory.add(id);
        }
        case 1 -> {
          c.keyChanged(FleetTopology.INVENTORY_VIEW, id, null);
          inInventory.remove(id);
        }
        case 2 -> {
          c.keyChanged(FleetTopology.VMS_VIEW, id, VmView.unknown(id));
          withView.add(id);
        }
        default -> {
          c.keyChanged(FleetTopology.VMS_VIEW, id, null);
          withView.remove(id);
        }
      }
      if (step % 500 == 0) {
        java.util.List<String> without =
            inInventory.stream().filter(v -> !withView.contains(v)).toList();
        java.util.List<String> unknown =
            withView.stream().filter(v -> !inInventory.contains(v)).toList();
        Coverage.Counts n = c.counts();
        assertThat(c.firstWithoutAgent(Integer.MAX_VALUE)).isEqualTo(without);
        assertThat(c.firstWithoutAgent(5))
            .isEqualTo(without.subList(0, Math.min(5, without.size())));
        assertThat(n.withoutAgent()).isEqualTo(without.size());
        assertThat(c.firstUnknown(Integer.MAX_VALUE)).isEqualTo(unknown);
        assertThat(n.unknown()).isEqualTo(unknown.size());
        assertThat(unknown).allMatch(c::unknown);
      }
    }
  }
}
