package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.inventory.Coverage;
import dev.sebridge.fleet.model.InventoryVm;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The page's coverage section (docs/fleet.md, "Membership from Azure's inventory"): how many VMs
 * Azure lists, how many of them have a live agent, a silent one or none, and how many unknown VMs
 * report; the first {@link #LIMIT} VMs without an agent and the first unknown VMs, in key order,
 * chosen by the same rule as the counts ({@link Coverage}: its key-ordered sets, no store scanned).
 * The API pages the rest: {@code /api/coverage/without-agent} by the same rule, {@code
 * /api/vms?inventory=unknown} by each view's stamp (see docs/fleet.md).
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
    // Which VMs: from the counts' own key-ordered sets (no store read), so the lists agree with
    // the counts; then each shown VM read by key.
    List<String> without = c.withoutAgent() == 0 ? List.of() : coverage.firstWithoutAgent(LIMIT);
    m.put(
        "withoutList",
        without.stream()
            .map(id -> Optional.ofNullable(views.inventory().get(id)))
            .flatMap(Optional::stream)
            .map(CoverageSection::row)
            .toList());
    m.put("withoutMore", c.withoutAgent() > LIMIT);
    m.put("hasWithout", !without.isEmpty());
    List<String> unknown = c.unknown() == 0 ? List.of() : coverage.firstUnknown(LIMIT);
    m.put(
        "unknownList",
        unknown.stream()
            .map(views::vm)
            .flatMap(Optional::stream)
            .map(v -> PageModel.row(v, true))
            .toList());
    m.put("unknownMore", c.unknown() > LIMIT);
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
}
