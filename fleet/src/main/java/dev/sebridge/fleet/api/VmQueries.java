package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.VmEventState;
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
   * @param type only VMs in an open event of this type (case-insensitive)
   * @param source only VMs in an open event of this source (case-insensitive)
   * @param status only VMs whose part in an open event (of that type and source, if given) is in
   *     this status
   */
  public record VmFilter(
      Boolean silent,
      Boolean known,
      String zone,
      String scaleSet,
      String resourceGroup,
      String text,
      String type,
      String source,
      String status) {
    public VmFilter(
        Boolean silent,
        Boolean known,
        String zone,
        String scaleSet,
        String resourceGroup,
        String text) {
      this(silent, known, zone, scaleSet, resourceGroup, text, null, null, null);
    }

    /** Whether the VMs are those of open events (and read from them, not from every VM). */
    boolean byEvent() {
      return type != null || source != null || status != null;
    }

    boolean event(EventView e) {
      return (type == null || type.equalsIgnoreCase(e.eventType()))
          && (source == null || source.equalsIgnoreCase(e.eventSource()));
    }

    /** A VM's part as the filter takes it: in the status given, or, with none, not closed. */
    boolean part(VmEventState s) {
      return status == null ? !s.closed() : status.equals(s.status());
    }

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
        f.byEvent()
            ? views.vmsOf(
                views.vmsInOpenEvents(f::event, f::part), page.after(), f::keeps, page.limit() + 1)
            : Boolean.TRUE.equals(f.silent())
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
