package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.inventory.Coverage;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The coverage answers ({@code /api/coverage}): the counts {@link Coverage} keeps, and the
 * inventory's VMs without an agent a page at a time (the inventory read in key order, as far as a
 * page needs; whether a VM has an agent is asked of the counts, not of its view).
 */
public final class CoverageQueries {
  private final FleetViews views;
  private final Coverage coverage;
  private final Supplier<Instant> refreshedAt;
  private final Clock clock;

  /**
   * @param coverage null without an inventory: every answer is a 404
   */
  public CoverageQueries(
      FleetViews views, Coverage coverage, Supplier<Instant> refreshedAt, Clock clock) {
    this.views = views;
    this.coverage = coverage;
    this.refreshedAt = refreshedAt;
    this.clock = clock;
  }

  /** Throws the 404 every coverage answer is without an inventory. */
  public void requireInventory() {
    coverage();
  }

  private Coverage coverage() {
    if (coverage == null) {
      throw new ApiException(
          404,
          "no inventory: coverage needs fleet.inventory.subscriptions or"
              + " fleet.inventory.management-groups");
    }
    return coverage;
  }

  public ObjectNode counts() {
    Coverage.Counts c = coverage().counts();
    ObjectNode out = JsonSerde.JSON.createObjectNode();
    out.put("generatedAt", clock.instant().toString());
    Instant at = refreshedAt.get();
    if (at != null) {
      out.put("refreshedAt", at.toString());
    }
    out.put("inventory", c.inventory());
    out.put("live", c.live());
    out.put("silent", c.silent());
    out.put("withoutAgent", c.withoutAgent());
    out.put("unknown", c.unknown());
    return out;
  }

  /** The list's name in its cursors. */
  public static final String WITHOUT_AGENT = "vms-without-agent";

  /**
   * A page of the VMs the inventory lists and no agent reports, in vmId order: the ids from the
   * coverage's own key-ordered set (no walk of the inventory), each VM then read by key.
   */
  public ObjectNode withoutAgent(FleetQueries.Page page) {
    Coverage c = coverage();
    var inventory = views.inventory();
    return ListAnswers.page(
        WITHOUT_AGENT,
        "vms",
        c.withoutAgentAfter(page.after(), page.limit() + 1).stream()
            .map(id -> org.apache.kafka.streams.KeyValue.pair(id, id))
            .toList(),
        page.limit(),
        clock,
        (a, kv) -> {
          InventoryVm vm = inventory.get(kv.key);
          if (vm != null) { // listed a moment ago, gone since: not shown
            a.add((ObjectNode) JsonSerde.JSON.valueToTree(vm));
          }
        });
  }
}
