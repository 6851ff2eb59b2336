package dev.sebridge.fleet.rollout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A rollout stored as a header and an entry per VM, event and group limit (docs/fleet.md,
 * "Rollouts: approving in waves"), so that no record grows with the rollout: the header keeps what
 * is bounded (the spec without its event ids, state, halt, the last {@link #MAX_WAVES} waves
 * without their lists, the last {@link #MAX_HISTORY} actions), every VM's part, every event and
 * every group's limit is an entry of its own (a rollout records a limit for every group a check
 * met, as many as the fleet has groups). A wave's events and VMs are read back from the VMs'
 * entries (each knows its wave).
 */
public final class RolloutParts {
  /** Waves the header keeps (the newest); older ones are read from nowhere. */
  public static final int MAX_WAVES = 500;

  /** Actions and halts the header keeps (the newest). */
  public static final int MAX_HISTORY = 200;

  private RolloutParts() {}

  /**
   * The header: what of the rollout is bounded (a rollout not {@link RolloutPart#splittable}: all).
   */
  public static Rollout header(Rollout r) {
    if (!RolloutPart.splittable(r.id())) {
      return r;
    }
    List<Rollout.Wave> waves = new ArrayList<>();
    for (Rollout.Wave w : last(r.waves(), MAX_WAVES)) {
      waves.add(new Rollout.Wave(w.number(), w.at(), List.of(), List.of()));
    }
    return new Rollout(
        r.id(),
        r.spec().withEvents(List.of()),
        r.reason(),
        r.requestedBy(),
        r.origin(),
        r.createdAt(),
        r.state(),
        r.halt(),
        Map.of(),
        Map.of(),
        waves,
        last(r.history(), MAX_HISTORY),
        Map.of());
  }

  /** The entries, by key ({@link RolloutPart#vmKey}, {@link RolloutPart#eventKey}). */
  public static Map<String, RolloutPart> parts(Rollout r) {
    Map<String, RolloutPart> out = new LinkedHashMap<>();
    if (!RolloutPart.splittable(r.id())) {
      return out;
    }
    String id = r.id();
    r.vms().values().forEach(v -> out.put(RolloutPart.vmKey(id, v), RolloutPart.of(v)));
    r.groupLimits()
        .forEach(
            (g, n) ->
                out.put(RolloutPart.limitKey(id, g), RolloutPart.of(new RolloutPart.Limit(g, n))));
    Map<String, Instant> unreported = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    unreported.putAll(r.unreported());
    List<String> eventIds = r.spec().eventIds();
    for (int i = 0; i < eventIds.size(); i++) {
      String e = eventIds.get(i);
      out.put(
          RolloutPart.eventKey(id, e),
          RolloutPart.of(new RolloutPart.Event(e, i, unreported.remove(e))));
    }
    unreported.forEach(
        (e, since) ->
            out.put(
                RolloutPart.eventKey(id, e),
                RolloutPart.of(new RolloutPart.Event(e, null, since))));
    return out;
  }

  /**
   * The rollout again from its header and its entries. A header written whole (before rollouts were
   * stored in parts) already holds its VMs and events: it is the rollout, and the next save stores
   * it in parts. A header written before the limits were entries holds them: a group's limit is the
   * smaller of the header's and its entry's.
   */
  public static Rollout assemble(Rollout header, Iterable<RolloutPart> parts) {
    Map<String, RolloutVm> vms = new TreeMap<>(header.vms());
    Map<String, Integer> limits = new TreeMap<>(header.groupLimits());
    List<RolloutPart.Event> events = new ArrayList<>();
    for (RolloutPart p : parts) {
      if (p == null) {
        continue;
      }
      if (p.vm() != null) {
        vms.put(p.vm().key(), p.vm());
      } else if (p.event() != null) {
        events.add(p.event());
      } else if (p.limit() != null && p.limit().group() != null) {
        limits.merge(p.limit().group(), p.limit().limit(), Math::min);
      }
    }
    List<String> eventIds = new ArrayList<>(header.spec().eventIds());
    Map<String, Instant> unreported = new TreeMap<>(header.unreported());
    events.stream()
        .filter(e -> e.order() != null)
        .sorted(Comparator.comparingInt(RolloutPart.Event::order))
        .forEach(e -> eventIds.add(e.eventId()));
    events.stream()
        .filter(e -> e.unreportedSince() != null)
        .forEach(e -> unreported.put(e.eventId(), e.unreportedSince()));
    return new Rollout(
        header.id(),
        header.spec().withEvents(eventIds),
        header.reason(),
        header.requestedBy(),
        header.origin(),
        header.createdAt(),
        header.state(),
        header.halt(),
        limits,
        vms,
        waves(header.waves(), vms),
        header.history(),
        unreported);
  }

  /** The waves with their events and VMs read from the entries (when the header has none). */
  private static List<Rollout.Wave> waves(List<Rollout.Wave> waves, Map<String, RolloutVm> vms) {
    Map<Integer, TreeSet<String>> events = new TreeMap<>();
    Map<Integer, TreeSet<String>> vmIds = new TreeMap<>();
    for (RolloutVm v : vms.values()) {
      if (v.wave() != null) {
        events.computeIfAbsent(v.wave(), n -> new TreeSet<>()).add(v.eventId());
        vmIds.computeIfAbsent(v.wave(), n -> new TreeSet<>()).add(v.vmId());
      }
    }
    List<Rollout.Wave> out = new ArrayList<>();
    for (Rollout.Wave w : waves) {
      boolean whole = !w.eventIds().isEmpty() || !w.vmIds().isEmpty();
      out.add(
          whole
              ? w
              : new Rollout.Wave(
                  w.number(),
                  w.at(),
                  List.copyOf(events.getOrDefault(w.number(), new TreeSet<>())),
                  List.copyOf(vmIds.getOrDefault(w.number(), new TreeSet<>()))));
    }
    return out;
  }

  private static <T> List<T> last(List<T> list, int n) {
    return list.size() <= n ? list : List.copyOf(list.subList(list.size() - n, list.size()));
  }
}
