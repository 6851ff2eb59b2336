package dev.sebridge.fleet.streams;

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
  static VmFacts of(VmView v) {
    return new VmFacts(
        v.zone(),
        v.scaleSet(),
        v.resourceGroup(),
        v.location(),
        v.silent(),
        v.notInInventory(),
        v.lastHeartbeatAt());
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
