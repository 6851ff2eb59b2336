package dev.sebridge.benchmarks;

import dev.sebridge.config.ConfigProblem;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Policies;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
    Instant at = FleetTickBenchmark.T0.minus(Duration.ofDays(1 + i % 29));
    return accepted("past-" + i, "P-" + i, vmId(i % vms), at, "an earlier wave", "rollout:old");
  }

  /**
   * The benchmark's one policy: never approve a Freeze (its open events are decided, then kept).
   */
  static Policies neverFreeze() {
    List<ConfigProblem> problems = new ArrayList<>();
    Policies policies =
        Policies.parse(
            Map.of(
                "version", "1",
                "rules.10-freeze.match.type", "Freeze",
                "rules.10-freeze.action", "never"),
            problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(problems.toString());
    }
    return policies;
  }

  /** A request of one VM, made at {@code at}, whose command its agent accepted. */
  static RequestView accepted(
      String requestId, String eventId, String vmId, Instant at, String reason, String origin) {
    return new RequestView(
        new ApprovalRequest(requestId, eventId, List.of(vmId), reason, "bench", at, origin),
        at,
        Map.of(vmId, new RequestView.VmResult("c-" + requestId, "accepted", null, "posted", at)));
  }

  /** The id of closed event {@code i}, as Azure spells one. */
  static String closedId(int i) {
    return String.format(Locale.ROOT, "%08X-0000-4000-8000-%012X", i, (long) i * 7919);
  }

  /** A host update's one-VM event of VM {@code i} (modulo the fleet), closed at {@code closed}. */
  static EventView closedEvent(int i, int vms, int groups, Instant closed) {
    return event(
        closedId(i),
        "Reboot",
        "Host update",
        i % vms,
        groups,
        closed.minus(Duration.ofMinutes(20)),
        closed.minus(Duration.ofHours(2)),
        closed);
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
