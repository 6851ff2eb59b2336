package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.inventory.Coverage;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmView;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.streams.KeyValue;

/**
 * The page's coverage section (docs/fleet.md, "Membership from Azure's inventory"): how many VMs
 * Azure lists, how many of them have a live agent, a silent one or none, and how many unknown VMs
 * report; the first {@link #LIMIT} VMs without an agent (the inventory in key order, as the API
 * pages it) and the first unknown VMs. The API ({@code /api/coverage}, {@code /api/vms?inventory=})
 * pages the rest.
 */
final class CoverageSection {
  static final int LIMIT = 20;

  private final FleetViews views;
  private final Coverage coverage;
  private final Supplier<Instant> refreshedAt;

  /**
   * @param coverage null without an inventory: the section says how to turn it on
   */
  CoverageSection(FleetViews views, Coverage coverage, Supplier<Instant> refreshedAt) {
    this.views = views;
    this.coverage = coverage;
    this.refreshedAt = refreshedAt;
  }

  Map<String, Object> model() {
    Map<String, Object> m = new HashMap<>();
    m.put("empty", false);
    m.put("configured", coverage != null);
    if (coverage == null) {
      return m;
    }
    Coverage.Counts c = coverage.counts();
    m.put("inventory", c.inventory());
    m.put("live", c.live());
    m.put("silent", c.silent());
    m.put("withoutAgent", c.withoutAgent());
    m.put("unknown", c.unknown());
    m.put("limit", LIMIT);
    Instant at = refreshedAt.get();
    m.put("refreshedAt", at == null ? null : at.toString());
    List<KeyValue<String, InventoryVm>> without =
        views.inventoryAfter(null, v -> !coverage.hasAgent(v.vmId()), LIMIT + 1);
    m.put("withoutList", without.stream().limit(LIMIT).map(kv -> row(kv.value)).toList());
    m.put("withoutMore", without.size() > LIMIT);
    m.put("hasWithout", !without.isEmpty());
    List<KeyValue<String, VmView>> unknown =
        views.vmsAfter(null, v -> v.inventory() == InventoryState.UNKNOWN, LIMIT + 1);
    m.put("unknownList", unknown.stream().limit(LIMIT).map(kv -> row(kv.value)).toList());
    m.put("unknownMore", unknown.size() > LIMIT);
    m.put("hasUnknown", !unknown.isEmpty());
    return m;
  }

  private static Map<String, Object> row(InventoryVm v) {
    return Map.of(
        "vmId", v.vmId(),
        "name", Objects.requireNonNullElse(v.name(), v.vmId()),
        "zone", Objects.requireNonNullElse(v.zone(), "-"),
        "scaleSet", Objects.requireNonNullElse(v.scaleSet(), "-"),
        "resourceGroup", Objects.requireNonNullElse(v.resourceGroup(), "-"));
  }

  private static Map<String, Object> row(VmView v) {
    return Map.of(
        "vmId", v.vmId(),
        "name", Objects.requireNonNullElse(v.name(), v.vmId()),
        "zone", Objects.requireNonNullElse(v.zone(), "-"),
        "scaleSet", Objects.requireNonNullElse(v.scaleSet(), "-"),
        "lastSeenAt", v.lastSeenAt() == null ? "never" : v.lastSeenAt().toString());
  }
}
