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
    if (header == null) {
      return null;
    }
    Map<String, RolloutPart> stored = new HashMap<>();
    try (KeyValueIterator<String, RolloutPart> it =
        parts.range(RolloutPart.from(id), RolloutPart.to(id))) {
      it.forEachRemaining(kv -> stored.put(kv.key, kv.value));
    }
    r = RolloutParts.assemble(header, stored.values());
    kept.put(id, r);
    keptParts.put(id, stored);
    return r;
  }

  /** Every rollout (read once, then kept). */
  List<Rollout> all() {
    List<String> ids = new ArrayList<>();
    try (KeyValueIterator<String, Rollout> it = headers.all()) {
      it.forEachRemaining(kv -> ids.add(kv.key));
    }
    List<Rollout> out = new ArrayList<>();
    for (String id : ids) {
      Rollout r = get(id);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }

  /** Stores the rollout and tells the views: the header, and the entries that changed. */
  void put(Rollout r) {
    String id = r.id();
    if (!kept.containsKey(id)) {
      get(id); // what is stored now, to compare with
    }
    Map<String, RolloutPart> before = keptParts.getOrDefault(id, Map.of());
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
    kept.put(id, r);
    keptParts.put(id, after);
  }

  /** Deletes the rollout, its entries, and their views. */
  void delete(String id) {
    if (!kept.containsKey(id)) {
      get(id);
    }
    long now = context.currentSystemTimeMs();
    for (String key : keptParts.getOrDefault(id, Map.of()).keySet()) {
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
