package dev.sebridge.benchmarks;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The generated fleet of {@link FleetTickBenchmark}: its VMs' views, its events' and the earlier
 * requests.
 */
final class FleetTickFixtures {
  private FleetTickFixtures() {}

  /** A request of an earlier rollout: sent, accepted by its one VM. */
  static RequestView pastRequest(int i, int vms) {
    String vmId = vmId(i % vms);
    Instant at = FleetTickBenchmark.T0.minus(Duration.ofDays(1 + i % 29));
    return new RequestView(
        new ApprovalRequest(
            "past-" + i, "P-" + i, List.of(vmId), "an earlier wave", "bench", at, "rollout:old"),
        at,
        Map.of(vmId, new RequestView.VmResult("c-" + i, "accepted", null, "posted", at)));
  }

  /**
   * A one-VM event of VM {@code vm}, first seen at {@code seen}: open ({@code closed} null), its VM
   * scheduled since then; or closed at {@code closed}, its VM completed then.
   */
  static EventView event(
      String id,
      String type,
      String description,
      int vm,
      int groups,
      Instant notBefore,
      Instant seen,
      Instant closed) {
    String vmId = vmId(vm);
    Instant last = closed == null ? seen : closed;
    return new EventView(
        id,
        type,
        "Platform",
        notBefore,
        -1,
        description,
        List.of(name(vm)),
        seen,
        last,
        closed,
        Map.of(
            vmId,
            new VmEventState(
                vmId,
                name(vm),
                zone(vm),
                scaleSet(vm, groups),
                closed == null ? "scheduled" : "completed",
                null,
                last,
                null)));
  }

  static VmView vm(int i, int groups, Instant at) {
    String vmId = vmId(i);
    return new VmView(
        vmId,
        name(i),
        null,
        "sub-1",
        "rg-" + (i % 7),
        "westeurope",
        zone(i),
        scaleSet(i, groups),
        "0.1.0",
        at,
        at,
        at,
        60,
        Map.of(),
        false,
        Set.of());
  }

  static String vmId(int i) {
    return String.format("vm-%06d", i);
  }

  static String name(int i) {
    return String.format("web-%06d", i);
  }

  static String zone(int i) {
    return Integer.toString(i % 3 + 1);
  }

  static String scaleSet(int i, int groups) {
    return "ss-" + (i % groups);
  }
}
