package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.FleetEnvelope;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.fleet.model.VmView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each VM's view ({@link FleetTopology#VM_STATE}, keyed by vmId) from every envelope of its
 * agent, and finds silent agents: every {@link #SILENCE_CHECK} of wall-clock time, a VM from which
 * nothing came for {@code silentAfter} heartbeat intervals is marked silent; it is back with its
 * next envelope. Each change goes out as the VM's new view.
 *
 * <p>A VM nothing came from for {@code gone} is gone (scaled in, deleted, preempted: nothing else
 * tells the fleet): its view is deleted (a tombstone on the views topic), and its part in each
 * event it had open goes to the event's partition as {@code vanished}, which closes it there
 * ({@link Retention}). Should its agent speak again, it is a VM like a new one. "For {@code gone}"
 * is measured in stream time, the newest envelope this task has read from any VM: after the service
 * was down, or behind, for longer than that, nothing vanishes until the backlog says so, and a
 * fleet that went silent as a whole vanishes nothing. The fleet never counts a vanished VM as
 * available ({@code ListedVms}: it is known by name only again).
 *
 * <p>With an inventory ({@link Membership#INVENTORY}), each envelope's view is stamped with what
 * Azure's inventory says of its vmId ({@link VmViews#withInventory}): the group attributes are
 * Azure's, or the VM is {@code unknown}. A VM the inventory learns of later is known from its next
 * envelope (a heartbeat interval at most); until then it counts nowhere.
 */
final class VmProcessor implements Processor<String, FleetEnvelope, String, Object> {
  private static final Logger LOG = LoggerFactory.getLogger(VmProcessor.class);

  static final Duration SILENCE_CHECK = Duration.ofSeconds(10);

  /** The transition a gone VM's open event parts close with (inferred, guess vanished). */
  static final String VANISHED = "vanished";

  /**
   * A VM's part of an event closed for it at {@code at}, inferred as {@link #VANISHED}: the VM is
   * gone, or nothing was heard of the event for so long ({@link EventProcessor}).
   */
  static VmEventUpdate vanished(
      String eventKey, String vmId, String name, String zone, String scaleSet, Instant at) {
    return new VmEventUpdate(eventKey, vmId, name, zone, scaleSet, at, VANISHED, true, null, null);
  }

  private final int silentAfter;
  private final Duration gone;
  private final boolean inventoried;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, VmView> store;
  private KeyValueStore<String, InventoryVm> inventory;
  private final SilenceWatch watch = new SilenceWatch();

  /**
   * @param silentAfter heartbeat intervals without an envelope after which a VM is silent
   * @param gone how long without an envelope after which a VM is gone
   */
  VmProcessor(int silentAfter, Duration gone, Membership membership) {
    this.silentAfter = silentAfter;
    this.gone = gone;
    this.inventoried = membership == Membership.INVENTORY;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.store = context.getStateStore(FleetTopology.VM_STATE);
    this.inventory = inventoried ? context.getStateStore(FleetTopology.INVENTORY_VIEW) : null;
    watch.reset(); // a revived task's store was restored: read whole at the next check
    context.schedule(SILENCE_CHECK, PunctuationType.WALL_CLOCK_TIME, this::findSilent);
  }

  @Override
  public void process(Record<String, FleetEnvelope> record) {
    FleetEnvelope e = record.value();
    VmView old = store.get(e.vmId());
    Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
    InventoryVm listed = inventory == null ? null : InventoryVm.listed(e.vmId(), inventory::get);
    VmView next =
        VmViews.apply(
            old == null ? VmView.unknown(e.vmId()) : old,
            e,
            now,
            listed == null ? null : listed.name());
    if (inventory != null) {
      next = VmViews.withInventory(next, listed);
    }
    store.put(e.vmId(), next);
    watch.wrote(e.vmId(), next);
    Record<String, Object> out = new Record<>(e.vmId(), next, record.timestamp());
    if (newer(old, next)) {
      // The global updater counts the view delay of such a view, without reading the one before.
      out = out.withHeaders(new RecordHeaders().add(GlobalViews.NEWER_ENVELOPE, new byte[0]));
    }
    context.forward(out, FleetTopology.VMS_VIEW_SINK);
  }

  /** The view has a newer envelope than the one before (not a silence change, not a late one). */
  private static boolean newer(VmView old, VmView v) {
    return v.lastEnvelopeAt() != null
        && (old == null
            || old.lastEnvelopeAt() == null
            || v.lastEnvelopeAt().isAfter(old.lastEnvelopeAt()));
  }

  private void findSilent(long wallClockMs) {
    Instant now = Instant.ofEpochMilli(wallClockMs);
    long streamTime = context.currentStreamTimeMs();
    List<VmView> vanished = new ArrayList<>();
    // Only the views whose silence changes or that are gone are read (SilenceWatch).
    for (String vmId : watch.due(store, now, streamTime, gone, silentAfter)) {
      VmView v = store.get(vmId);
      if (v == null) {
        watch.wrote(vmId, null);
        continue;
      }
      Instant last = v.lastEnvelopeAt();
      if (last != null && streamTime > 0 && streamTime - last.toEpochMilli() >= gone.toMillis()) {
        vanished.add(v);
        continue;
      }
      boolean silent = VmViews.silent(v, now, silentAfter);
      if (silent != v.silent()) {
        VmView next = VmViews.withSilent(v, silent);
        store.put(vmId, next);
        watch.wrote(vmId, next);
        context.forward(
            new Record<String, Object>(vmId, next, wallClockMs), FleetTopology.VMS_VIEW_SINK);
      }
    }
    for (VmView v : vanished) {
      // An unknown VM's claimed group reaches no event part (as FanOut's do not).
      boolean claims = inventory == null || v.inventory() == InventoryState.KNOWN;
      for (String eventKey : v.openEvents()) {
        context.forward(
            new Record<String, Object>(
                eventKey,
                vanished(
                    eventKey,
                    v.vmId(),
                    v.name(),
                    claims ? v.zone() : null,
                    claims ? v.scaleSet() : null,
                    now),
                wallClockMs),
            FleetTopology.BY_EVENT_SINK);
      }
      store.delete(v.vmId());
      watch.wrote(v.vmId(), null);
      context.forward(
          new Record<String, Object>(v.vmId(), null, wallClockMs), FleetTopology.VMS_VIEW_SINK);
      LOG.info(
          "VM {} ({}): nothing heard since {}, gone; its view is deleted and its {} open event(s)"
              + " close as vanished",
          v.name(),
          v.vmId(),
          v.lastEnvelopeAt(),
          v.openEvents().size());
    }
  }
}
