package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.VmView;
import java.time.Instant;

/**
 * What a rollout asks of a VM: its group attributes, whether it is silent, whether the inventory
 * does not know it, its heartbeat.
 */
record VmFacts(
    String zone,
    String scaleSet,
    String resourceGroup,
    String location,
    boolean silent,
    boolean unknown,
    Instant lastHeartbeatAt) {
  /**
   * With an inventory, a VM is known only when its view says so: one stamped before the inventory
   * was configured (or not at all) is not.
   */
  static VmFacts of(VmView v, Membership membership) {
    return new VmFacts(
        v.zone(),
        v.scaleSet(),
        v.resourceGroup(),
        v.location(),
        v.silent(),
        membership == Membership.INVENTORY && v.inventory() != InventoryState.KNOWN,
        v.lastHeartbeatAt());
  }

  /**
   * The same VM where the inventory puts it (a blank scale set as its view was stamped: the place
   * keeps none for blank).
   */
  VmFacts at(dev.sebridge.fleet.inventory.InventoryPlaces.Place p) {
    String set =
        p.scaleSet() == null && scaleSet != null && scaleSet.isBlank() ? scaleSet : p.scaleSet();
    return new VmFacts(
        p.zone(), set, p.resourceGroup(), p.location(), silent, unknown, lastHeartbeatAt);
  }

  /** Whether the VM counts in its group's size: live, and not unknown to the inventory. */
  boolean counted() {
    return !silent && !unknown;
  }

  String attribute(String name) {
    return switch (name) {
      case "zone" -> zone;
      case "scaleSet" -> scaleSet;
      case "resourceGroup" -> resourceGroup;
      case "location" -> location;
      default -> null;
    };
  }
}
