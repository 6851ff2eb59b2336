package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.VmView;
import java.time.Instant;

/**
 * What a rollout asks of a VM: its group attributes, whether it is silent, whether the inventory
 * does not know it, its heartbeat.
 *
 * @param stamped the facts as its view has them, when the attributes here are the inventory's that
 *     differ from them ({@link #at}); null otherwise
 */
record VmFacts(
    String zone,
    String scaleSet,
    String resourceGroup,
    String location,
    boolean silent,
    boolean unknown,
    Instant lastHeartbeatAt,
    VmFacts stamped) {
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
        v.lastHeartbeatAt(),
        null);
  }

  /** The facts as the VM's view has them (whatever the inventory says now). */
  VmFacts view() {
    return stamped == null ? this : stamped;
  }

  /**
   * The VM as its view has it, where the inventory puts it now (null: no longer listed, where its
   * view has it). A blank scale set stays as its view was stamped: the place keeps none for blank.
   */
  VmFacts at(dev.sebridge.fleet.inventory.InventoryPlaces.Place p) {
    VmFacts v = view();
    if (p == null) {
      return v;
    }
    String set =
        p.scaleSet() == null && v.scaleSet != null && v.scaleSet.isBlank()
            ? v.scaleSet
            : p.scaleSet();
    VmFacts placed =
        new VmFacts(
            p.zone(),
            set,
            p.resourceGroup(),
            p.location(),
            v.silent,
            v.unknown,
            v.lastHeartbeatAt,
            v);
    return placed.sameAttributes(v) ? v : placed;
  }

  /**
   * The VM as its view has it, unknown: the inventory no longer lists it ({@code
   * IndexContents.placed}); its view's facts kept, for when the inventory lists it again.
   */
  VmFacts unlisted() {
    VmFacts v = view();
    return new VmFacts(
        v.zone, v.scaleSet, v.resourceGroup, v.location, v.silent, true, v.lastHeartbeatAt, v);
  }

  private boolean sameAttributes(VmFacts o) {
    return java.util.Objects.equals(zone, o.zone)
        && java.util.Objects.equals(scaleSet, o.scaleSet)
        && java.util.Objects.equals(resourceGroup, o.resourceGroup)
        && java.util.Objects.equals(location, o.location);
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
