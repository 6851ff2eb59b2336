package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.VmView;
import java.time.Instant;

/** What a rollout asks of a VM: its group attributes, whether it is silent, its heartbeat. */
record VmFacts(
    String zone,
    String scaleSet,
    String resourceGroup,
    String location,
    boolean silent,
    Instant lastHeartbeatAt) {
  static VmFacts of(VmView v) {
    return new VmFacts(
        v.zone(), v.scaleSet(), v.resourceGroup(), v.location(), v.silent(), v.lastHeartbeatAt());
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
