package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.inventory.Coverage;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.streams.KeyValue;

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

  public ObjectNode withoutAgent(FleetQueries.Page page) {
    Coverage c = coverage();
    List<KeyValue<String, InventoryVm>> found =
        views.inventoryAfter(page.after(), v -> !c.hasAgent(v.vmId()), page.limit() + 1);
    ObjectNode out = JsonSerde.JSON.createObjectNode();
    out.put("generatedAt", clock.instant().toString());
    ArrayNode list = out.putArray("vms");
    List<KeyValue<String, InventoryVm>> shown =
        found.subList(0, Math.min(page.limit(), found.size()));
    shown.forEach(kv -> list.add((ObjectNode) JsonSerde.JSON.valueToTree(kv.value)));
    if (found.size() > page.limit()) {
      out.put("next", FleetQueries.Page.cursor(shown.get(shown.size() - 1).key));
    }
    return out;
  }
}
