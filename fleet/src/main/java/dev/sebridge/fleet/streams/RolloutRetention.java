package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutVm;
import dev.sebridge.fleet.rollout.World;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The rollout task's retention ({@link Retention}), part of {@link RolloutProcessor}: policy
 * decisions and finished API rollouts older than {@code history} are deleted, and a policy's
 * rollout, which never completes, sheds what is over so that its record stays the size of what is
 * under way.
 */
final class RolloutRetention {
  /** Where a deletion or a smaller rollout goes: the store and its view. */
  interface Outputs {
    void save(Rollout r);

    void deleteRollout(String id);

    void deleteDecision(String key);
  }

  private RolloutRetention() {}

  static void apply(
      KeyValueStore<String, Rollout> rollouts,
      KeyValueStore<String, PolicyDecision> decisions,
      World world,
      Duration history,
      Instant now,
      Outputs out) {
    Instant horizon = now.minus(history);
    List<String> oldDecisions = new ArrayList<>();
    try (KeyValueIterator<String, PolicyDecision> it = decisions.all()) {
      while (it.hasNext()) {
        KeyValue<String, PolicyDecision> kv = it.next();
        // An open event's decision stays: deleted, the event would be decided again.
        if (kv.value == null
            || (kv.value.at() != null
                && kv.value.at().isBefore(horizon)
                && !world.open(kv.value.eventId()))) {
          oldDecisions.add(kv.key);
        }
      }
    }
    oldDecisions.forEach(out::deleteDecision);

    List<Rollout> all = new ArrayList<>();
    try (KeyValueIterator<String, Rollout> it = rollouts.all()) {
      it.forEachRemaining(kv -> all.add(kv.value));
    }
    for (Rollout r : all) {
      if (r == null) {
        continue;
      }
      boolean policy = r.origin() != null && r.origin().startsWith("policy:");
      if (!policy) {
        if (!r.active() && lastAction(r).isBefore(horizon)) {
          out.deleteRollout(r.id());
        }
        continue;
      }
      // A policy's rollout stays (its id is never reused, an aborted one suspends its rule) but
      // drops what is over: events every entry is done with that the events view forgot.
      Rollout shed = shed(r, world, horizon);
      if (!shed.equals(r)) {
        out.save(shed);
      }
    }
  }

  /** When anything last happened to the rollout: its last action, or when it was created. */
  private static Instant lastAction(Rollout r) {
    Instant last = r.createdAt() == null ? Instant.EPOCH : r.createdAt();
    for (Rollout.Entry e : r.history()) {
      if (e.at() != null && e.at().isAfter(last)) {
        last = e.at();
      }
    }
    for (Rollout.Wave w : r.waves()) {
      if (w.at() != null && w.at().isAfter(last)) {
        last = w.at();
      }
    }
    return last;
  }

  /**
   * The rollout without the events it is done with (every entry done, and the event gone from the
   * events view: closed for {@code fleet.closed-retention}), and without waves and actions older
   * than the horizon.
   */
  static Rollout shed(Rollout r, World world, Instant horizon) {
    Set<String> busy = new HashSet<>();
    for (RolloutVm v : r.vms().values()) {
      if (!v.done()) {
        busy.add(lower(v.eventId()));
      }
    }
    Set<String> over = new HashSet<>();
    for (String e : r.spec().eventIds()) {
      if (!busy.contains(lower(e)) && !world.open(e) && world.eventVms(e).isEmpty()) {
        over.add(lower(e));
      }
    }
    // The last wave stays whatever its age: the next one is numbered after it.
    List<Rollout.Wave> waves = new ArrayList<>();
    for (int i = 0; i < r.waves().size(); i++) {
      Rollout.Wave w = r.waves().get(i);
      if (i == r.waves().size() - 1 || !w.at().isBefore(horizon)) {
        waves.add(w);
      }
    }
    List<Rollout.Entry> history =
        r.history().stream().filter(e -> !e.at().isBefore(horizon)).toList();
    if (over.isEmpty()
        && waves.size() == r.waves().size()
        && history.size() == r.history().size()) {
      return r;
    }
    Map<String, RolloutVm> vms = new TreeMap<>(r.vms());
    vms.values().removeIf(v -> over.contains(lower(v.eventId())));
    Map<String, Instant> unreported = new TreeMap<>(r.unreported());
    unreported.keySet().removeIf(e -> over.contains(lower(e)));
    List<String> eventIds =
        r.spec().eventIds().stream().filter(e -> !over.contains(lower(e))).toList();
    return new Rollout(
        r.id(),
        r.spec().withEvents(eventIds),
        r.reason(),
        r.requestedBy(),
        r.origin(),
        r.createdAt(),
        r.state(),
        r.halt(),
        r.groupLimits(),
        vms,
        waves,
        history,
        unreported);
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
