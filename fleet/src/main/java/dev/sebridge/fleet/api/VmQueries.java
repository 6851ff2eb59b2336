package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;

/** {@code GET /api/vms} and {@code GET /api/vms/{vmId}}: the VMs' views, a page at a time. */
final class VmQueries {
  /** The list's name in its cursors. */
  static final String VMS = "vms";

  private final FleetViews views;
  private final Clock clock;

  VmQueries(FleetViews views, Clock clock) {
    this.views = views;
    this.clock = clock;
  }

  /**
   * Filters of {@code GET /api/vms}: null means any.
   *
   * @param silent only silent agents (true) or only those heard from (false)
   * @param known only VMs the inventory lists (true) or unknown ones (false)
   * @param zone the VM's zone
   * @param scaleSet its scale set (case-insensitive)
   * @param resourceGroup its resource group (case-insensitive)
   * @param text in its vmId or name (case-insensitive)
   */
  public record VmFilter(
      Boolean silent,
      Boolean known,
      String zone,
      String scaleSet,
      String resourceGroup,
      String text) {
    boolean keeps(VmView v) {
      return (silent == null || v.silent() == silent)
          && (known == null
              || v.inventory() == (known ? InventoryState.KNOWN : InventoryState.UNKNOWN))
          && (zone == null || zone.equals(v.zone()))
          && (scaleSet == null || scaleSet.equalsIgnoreCase(v.scaleSet()))
          && (resourceGroup == null || resourceGroup.equalsIgnoreCase(v.resourceGroup()))
          && ListAnswers.mentions(text, v.vmId(), v.name());
    }
  }

  ObjectNode vms(VmFilter f, FleetQueries.Page page) {
    List<KeyValue<String, VmView>> found =
        Boolean.TRUE.equals(f.silent())
            ? views.silentVmsAfter(page.after(), f::keeps, page.limit() + 1)
            : views.vmsAfter(page.after(), f::keeps, page.limit() + 1);
    return ListAnswers.page(
        VMS, "vms", found, page.limit(), clock, (a, kv) -> a.add(toJson(kv.value)));
  }

  Optional<ObjectNode> vm(String vmId) {
    return views.vm(vmId).map(VmQueries::toJson);
  }

  private static ObjectNode toJson(VmView v) {
    return JsonSerde.JSON.valueToTree(v);
  }
}
