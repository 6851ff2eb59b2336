package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.FleetEnvelope;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.model.VmEventUpdate;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Sends what an envelope says about other keys where they are kept: each VM's part in an event to
 * the event's partition ({@link FleetTopology#BY_EVENT}), and the result of a command the fleet
 * service sent to its request's partition ({@link FleetTopology#BY_REQUEST}).
 *
 * <p>With an inventory, a VM's part in an event carries the inventory's name, zone and scale set
 * (what central policies match), or, for a vmId the inventory does not list, no zone or scale set
 * at all: an unknown VM's claims reach no event.
 */
final class FanOut implements Processor<String, FleetEnvelope, String, Object> {
  private final boolean inventoried;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, InventoryVm> inventory;

  FanOut(Membership membership) {
    this.inventoried = membership == Membership.INVENTORY;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.inventory = inventoried ? context.getStateStore(FleetTopology.INVENTORY_VIEW) : null;
  }

  @Override
  public void process(Record<String, FleetEnvelope> record) {
    FleetEnvelope e = record.value();
    if (dev.sebridge.fleet.model.Acknowledgement.byName(e.vmId())) {
      // No agent's vmId looks so: the fleet's key for a VM acknowledged for through Azure's
      // Maintenance API. Taken, it would speak for that VM in the events and requests views.
      SkipAndCount.skipped("name-vm-id", "envelope of vmId " + e.vmId());
      return;
    }
    InventoryVm listed = inventory == null ? null : InventoryVm.listed(e.vmId(), inventory::get);
    String listedName = listed == null ? null : listed.name();
    for (VmEventUpdate u :
        EventViews.updatesOf(e, listedName, inventory != null && listedName == null)) {
      if (inventory != null) {
        u =
            u.placedAs(
                listed != null && listed.name() != null ? listed.name() : u.name(),
                listed == null ? null : listed.zone(),
                listed == null ? null : listed.scaleSet());
      }
      context.forward(
          new Record<String, Object>(u.eventKey(), u, record.timestamp()),
          FleetTopology.BY_EVENT_SINK);
    }
    if (e.isResult()) {
      String commandId = e.data().path("commandId").asText(null);
      ApprovalRequest.requestIdOf(commandId)
          .ifPresent(
              requestId ->
                  context.forward(
                      new Record<String, Object>(
                          requestId, ResultReport.of(e, commandId), record.timestamp()),
                      FleetTopology.BY_REQUEST_SINK));
    }
  }
}
