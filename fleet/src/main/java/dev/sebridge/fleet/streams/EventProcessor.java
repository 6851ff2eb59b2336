package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.Source;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmEventUpdate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps each event's view ({@link FleetTopology#EVENT_STATE}, keyed by EventId) from its VMs'
 * reports. An event every reporting VM is done with is closed; it stays queryable by id for {@code
 * retention} after that, then it is deleted (a tombstone removes it from the views).
 */
final class EventProcessor implements Processor<String, VmEventUpdate, String, EventView> {
  static final Duration RETENTION_CHECK = Duration.ofMinutes(1);

  private final RetentionSweep<EventView> sweep = new RetentionSweep<>(RequestProcessor.SWEEP);

  private final Duration retention;
  private final TopologyObserver observer;
  private final boolean inventoried;
  private KeyValueStore<String, InventoryVm> inventory;
  private ProcessorContext<String, EventView> context;
  private KeyValueStore<String, EventView> store;

  /** How long an event only Azure reported stays open without a delivery (a lost Completed). */
  private final Duration centralSilence;

  EventProcessor(Duration retention, TopologyObserver observer, Membership membership) {
    this(retention, Retention.VMS, observer, membership);
  }

  EventProcessor(
      Duration retention,
      Duration centralSilence,
      TopologyObserver observer,
      Membership membership) {
    this.retention = retention;
    this.centralSilence = centralSilence;
    this.observer = observer;
    this.inventoried = membership == Membership.INVENTORY;
  }

  /** Whether Azure's inventory lists the VM in this spelling (always, without an inventory). */
  private boolean known(String vmId) {
    return inventory == null || InventoryVm.listed(vmId, inventory::get) != null;
  }

  @Override
  public void init(ProcessorContext<String, EventView> context) {
    this.context = context;
    this.store = context.getStateStore(FleetTopology.EVENT_STATE);
    this.inventory = inventoried ? context.getStateStore(FleetTopology.INVENTORY_VIEW) : null;
    context.schedule(RETENTION_CHECK, PunctuationType.WALL_CLOCK_TIME, this::forgetClosed);
  }

  @Override
  public void process(Record<String, VmEventUpdate> record) {
    VmEventUpdate u = record.value();
    EventView old = store.get(u.eventKey());
    if (u.approval() != null && (old == null || !old.vms().containsKey(u.vmId()))) {
      return; // a result for a VM the event does not list (the agent rejected it as not-listed)
    }
    if (u.ifPart() && (old == null || !old.vms().containsKey(u.vmId()))) {
      return; // a report not the VM's own by name, of an event it has no part in
    }
    if (u.transition().equals(VmProcessor.VANISHED)
        && (old == null || !old.vms().containsKey(u.vmId()) || old.vms().get(u.vmId()).closed())) {
      return; // a gone VM's part that is already over (or an event already forgotten)
    }
    EventView next =
        EventViews.apply(old, u, this::known, Instant.ofEpochMilli(context.currentSystemTimeMs()));
    if (next == null) {
      return; // Azure's first word on an event the views do not have: it is over
    }
    bothSources(old, u);
    var before = old == null || u.vmId() == null ? null : old.vms().get(u.vmId());
    var after = u.vmId() == null ? null : next.vms().get(u.vmId());
    if (before != null
        && after != null
        && before.status().equals("scheduled")
        && after.status().equals("approved")) {
      observer.approvedAfter(Duration.between(before.since(), u.time()));
    }
    store.put(u.eventKey(), next);
    context.forward(new Record<>(u.eventKey(), next, record.timestamp()));
  }

  /** The second source's first report of an event: who was first, and by how much. */
  private void bothSources(EventView old, VmEventUpdate u) {
    if (old == null) {
      return;
    }
    if (u.central() != null && u.isReconciled()) {
      return; // its time is the read's, not when Azure told
    }
    if (u.central() != null && old.central() == null && !old.vms().isEmpty()) {
      observer.seenByBoth(Source.AGENT, Duration.between(old.firstSeenAt(), u.time()));
    } else if (u.central() == null && old.central() != null && old.vms().isEmpty()) {
      observer.seenByBoth(Source.AZURE, Duration.between(old.central().firstSeenAt(), u.time()));
    }
  }

  /**
   * Whether the event's NotBefore, if it has one, passed before {@code silent} (for every event
   * closed for silence, the agents' and those only Azure reported): an event Azure scheduled days
   * ahead (a predicted hardware failure waiting for its host's other tenants) hears nothing until
   * then, and closed early, its VM was taken for back and its start, at NotBefore, counted nowhere
   * until Azure's Started came. A NotBefore more than {@link #AHEAD_AT_MOST} after the service's
   * clock is not believed (it would keep the event open as long); measured from the report's own
   * time, an agent's clock a month behind had its event closed before its NotBefore.
   */
  private static boolean notBeforeLongPast(EventView e, Instant silent, Instant now) {
    Instant nb = e.notBefore();
    return nb == null || nb.isBefore(silent) || nb.isAfter(now.plus(AHEAD_AT_MOST));
  }

  /**
   * The furthest ahead of the service's clock a NotBefore keeps an event open when nothing more is
   * heard of it.
   */
  static final Duration AHEAD_AT_MOST = Duration.ofDays(30);

  /**
   * Closed events older than the retention are deleted, and an event only Azure reported that
   * nothing was delivered for since {@code centralSilence} closes. Each check reads at most {@link
   * RequestProcessor#SWEEP} events, on from where the last one stopped ({@link RetentionSweep}).
   */
  private void forgetClosed(long wallClockMs) {
    Instant now = Instant.ofEpochMilli(wallClockMs);
    Instant horizon = now.minus(retention);
    Instant silent = now.minus(centralSilence);
    List<KeyValue<String, EventView>> lost = new ArrayList<>();
    List<KeyValue<String, EventView>> stale = new ArrayList<>();
    List<String> expired =
        sweep.expired(
            store,
            (key, e) -> {
              if (e.closedAt() != null) {
                return e.closedAt().isBefore(horizon);
              }
              if (!e.vms().isEmpty()
                  && e.lastSeenAt() != null
                  && e.lastSeenAt().isBefore(silent)
                  && (e.central() == null || e.central().lastSeenAt().isBefore(silent))
                  && notBeforeLongPast(e, silent, now)) {
                stale.add(KeyValue.pair(key, e));
              }
              if (e.vms().isEmpty()
                  && e.central() != null
                  && e.central().lastSeenAt().isBefore(silent)
                  && notBeforeLongPast(e, silent, now)) {
                lost.add(KeyValue.pair(key, e));
              }
              return false;
            });
    // An event only Azure reported, nothing delivered for it for so long, and its NotBefore as long
    // past: its Completed or Canceled was lost. It closes (and is forgotten after the retention),
    // so nothing stays open
    // for ever.
    for (KeyValue<String, EventView> kv : lost) {
      EventView e = kv.value;
      EventView closed = e.closedAt(now);
      store.put(kv.key, closed);
      context.forward(new Record<>(kv.key, closed, wallClockMs));
    }
    // An event its agents reported, nothing heard of it for so long, its NotBefore as long past:
    // no maintenance lasts that long, and an agent that lost its state (a tracker that could not
    // be read, a VM reimaged under its vmId) never reports its end. Its open parts close as
    // vanished, which the ledger takes for nothing until each VM is heard from again.
    for (KeyValue<String, EventView> kv : stale) {
      EventView e = kv.value;
      for (VmEventState part : kv.value.vms().values()) {
        if (!part.closed()) {
          e =
              EventViews.apply(
                  e,
                  VmProcessor.vanished(
                      kv.key, part.vmId(), part.name(), part.zone(), part.scaleSet(), now),
                  this::known,
                  now);
        }
      }
      store.put(kv.key, e);
      context.forward(new Record<>(kv.key, e, wallClockMs));
    }
    for (String key : expired) {
      store.delete(key);
      context.forward(new Record<String, EventView>(key, null, wallClockMs));
    }
  }
}
