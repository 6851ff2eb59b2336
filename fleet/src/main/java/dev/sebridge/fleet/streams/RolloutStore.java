package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.fleet.rollout.RolloutParts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The rollouts of the rollouts task, stored in parts ({@link RolloutParts}): headers in {@link
 * FleetTopology#ROLLOUT_STATE}, VMs' and events' entries in {@link
 * FleetTopology#ROLLOUT_PARTS_STATE}, and the same to the views ({@code views-rollouts}, {@code
 * views-rollout-parts}). A save writes the header and only the entries that changed (a tombstone
 * for each that went). The task is the stores' only writer, so the rollouts it read or wrote are
 * kept here as objects: a tick reads none of them again, and a save compares with what it holds. A
 * new task (a failover, a restart) starts with nothing kept and reads the stores again.
 */
final class RolloutStore {
  private final KeyValueStore<String, Rollout> headers;
  private final KeyValueStore<String, RolloutPart> parts;
  private final ProcessorContext<String, Object> context;
  private final Map<String, Rollout> kept = new HashMap<>();
  private final Map<String, Map<String, RolloutPart>> keptParts = new HashMap<>();

  RolloutStore(
      KeyValueStore<String, Rollout> headers,
      KeyValueStore<String, RolloutPart> parts,
      ProcessorContext<String, Object> context) {
    this.headers = headers;
    this.parts = parts;
    this.context = context;
  }

  /** The rollout, or null. */
  Rollout get(String id) {
    Rollout r = kept.get(id);
    if (r != null) {
      return r;
    }
    Rollout header = headers.get(id);
    return header == null ? null : read(header);
  }

  private Rollout read(Rollout header) {
    Map<String, RolloutPart> stored = stored(header.id());
    Rollout r = RolloutParts.assemble(header, stored.values());
    if (r.active()) {
      kept.put(r.id(), r);
      keptParts.put(r.id(), stored);
    }
    return r;
  }

  private Map<String, RolloutPart> stored(String id) {
    Map<String, RolloutPart> stored = new HashMap<>();
    if (RolloutPart.splittable(id)) {
      try (KeyValueIterator<String, RolloutPart> it =
          parts.range(RolloutPart.from(id), RolloutPart.to(id))) {
        it.forEachRemaining(kv -> stored.put(kv.key, kv.value));
      }
    }
    return stored;
  }

  /** Every active rollout, whole (the others are decided from their headers alone). */
  List<Rollout> active() {
    List<Rollout> out = new ArrayList<>();
    for (Rollout header : headers()) {
      if (header.active()) {
        Rollout r = kept.get(header.id());
        out.add(r != null ? r : read(header));
      }
    }
    return out;
  }

  /** Every rollout's header: its state, spec, halt, waves and actions, without its entries. */
  List<Rollout> headers() {
    List<Rollout> out = new ArrayList<>();
    try (KeyValueIterator<String, Rollout> it = headers.all()) {
      it.forEachRemaining(
          kv -> {
            if (kv.value != null) {
              out.add(kv.value);
            }
          });
    }
    return out;
  }

  /** Stores the rollout and tells the views: the header, and the entries that changed. */
  void put(Rollout r) {
    String id = r.id();
    Map<String, RolloutPart> before = keptParts.containsKey(id) ? keptParts.get(id) : stored(id);
    Map<String, RolloutPart> after = RolloutParts.parts(r);
    long now = context.currentSystemTimeMs();
    for (Map.Entry<String, RolloutPart> e : after.entrySet()) {
      if (!Objects.equals(before.get(e.getKey()), e.getValue())) {
        parts.put(e.getKey(), e.getValue());
        forward(e.getKey(), e.getValue(), FleetTopology.ROLLOUT_PARTS_VIEW_SINK, now);
      }
    }
    for (String key : before.keySet()) {
      if (!after.containsKey(key)) {
        parts.delete(key);
        forward(key, null, FleetTopology.ROLLOUT_PARTS_VIEW_SINK, now);
      }
    }
    Rollout header = RolloutParts.header(r);
    headers.put(id, header);
    forward(id, header, FleetTopology.ROLLOUTS_VIEW_SINK, now);
    if (r.active()) {
      // As the stores hold it (what a successor would read), not as it was handed in.
      kept.put(id, RolloutParts.assemble(header, after.values()));
      keptParts.put(id, after);
    } else {
      kept.remove(id);
      keptParts.remove(id);
    }
  }

  /** Deletes the rollout, its entries, and their views. */
  void delete(String id) {
    long now = context.currentSystemTimeMs();
    for (String key : stored(id).keySet()) { // from the store: every entry, whatever was kept
      parts.delete(key);
      forward(key, null, FleetTopology.ROLLOUT_PARTS_VIEW_SINK, now);
    }
    headers.delete(id);
    forward(id, null, FleetTopology.ROLLOUTS_VIEW_SINK, now);
    kept.remove(id);
    keptParts.remove(id);
  }

  private void forward(String key, Object value, String sink, long now) {
    context.forward(new Record<String, Object>(key, value, now), sink);
  }
}
