package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.FleetEnvelope;
import dev.sebridge.fleet.model.VmView;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps each VM's view ({@link FleetTopology#VM_STATE}, keyed by vmId) from every envelope of its
 * agent, and finds silent agents: every {@link #SILENCE_CHECK} of wall-clock time, a VM from which
 * nothing came for {@code silentAfter} heartbeat intervals is marked silent; it is back with its
 * next envelope. Each change goes out as the VM's new view.
 */
final class VmProcessor implements Processor<String, FleetEnvelope, String, VmView> {
  static final Duration SILENCE_CHECK = Duration.ofSeconds(10);

  private final int silentAfter;
  private ProcessorContext<String, VmView> context;
  private KeyValueStore<String, VmView> store;

  /**
   * @param silentAfter heartbeat intervals without an envelope after which a VM is silent
   */
  VmProcessor(int silentAfter) {
    this.silentAfter = silentAfter;
  }

  @Override
  public void init(ProcessorContext<String, VmView> context) {
    this.context = context;
    this.store = context.getStateStore(FleetTopology.VM_STATE);
    context.schedule(SILENCE_CHECK, PunctuationType.WALL_CLOCK_TIME, this::findSilent);
  }

  @Override
  public void process(Record<String, FleetEnvelope> record) {
    FleetEnvelope e = record.value();
    VmView old = store.get(e.vmId());
    Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
    VmView next = VmViews.apply(old == null ? VmView.unknown(e.vmId()) : old, e, now);
    store.put(e.vmId(), next);
    context.forward(new Record<>(e.vmId(), next, record.timestamp()));
  }

  private void findSilent(long wallClockMs) {
    Instant now = Instant.ofEpochMilli(wallClockMs);
    try (KeyValueIterator<String, VmView> all = store.all()) {
      while (all.hasNext()) {
        KeyValue<String, VmView> kv = all.next();
        boolean silent = VmViews.silent(kv.value, now, silentAfter);
        if (silent != kv.value.silent()) {
          VmView next = VmViews.withSilent(kv.value, silent);
          store.put(kv.key, next);
          context.forward(new Record<>(kv.key, next, wallClockMs));
        }
      }
    }
  }
}
