package dev.sebridge.fleet.rollout;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@link Ledger}'s limit check: every active rollout's limits ({@link #constrain}), and whether
 * releasing an event now keeps each of their groups within its limit, counted from the ledger's
 * entries ({@link DownCounts}, once per step). The ledger owns the entries and tells this when they
 * change ({@link #released}, {@link #changed}); every release path asks through the ledger.
 */
final class LedgerLimits {
  private final Collection<LedgerEntry> entries; // the ledger's, as they change
  private final Map<String, Rollout> constraints = new TreeMap<>();
  private final Map<String, Integer> groupSizes = new HashMap<>();
  private final DownCounts down = new DownCounts();
  // Every limit a check computed, by rollout and group, the smallest: what the step records
  // (Ledger#recorded), so that a failover to views behind them does not take a larger one.
  private final Map<String, Map<String, Integer>> met = new HashMap<>();

  LedgerLimits(Collection<LedgerEntry> entries) {
    this.entries = entries;
  }

  void constrain(Rollout r) {
    if (r.active()) {
      constraints.put(r.id(), r);
    } else {
      constraints.remove(r.id());
    }
  }

  boolean constrained() {
    return !constraints.isEmpty();
  }

  Optional<Rollout> holder(String eventId) {
    return constraints.values().stream().filter(r -> r.holds(eventId)).findFirst();
  }

  /** The refusal, explained (formatted) only when asked: a planner checks thousands of events. */
  Optional<String> check(String eventId, World w, Instant now, boolean explain) {
    return check(eventId, List.of(), w, now, explain);
  }

  /**
   * As {@link #check(String, World, Instant, boolean)}, with VMs the release makes unavailable
   * besides those the views list in the event ({@code also}: a rollout's VMs of it the views do not
   * show in it, acknowledged through the Maintenance API all the same).
   */
  Optional<String> check(
      String eventId, List<ListedVms.Listed> also, World w, Instant now, boolean explain) {
    List<ListedVms.Listed> listed = ListedVms.of(eventId, w);
    if (!also.isEmpty()) {
      listed = new java.util.ArrayList<>(listed);
      listed.addAll(also);
    }
    List<String> unreported =
        listed.stream().filter(l -> l.vmId() == null).map(ListedVms.Listed::name).toList();
    if (!constraints.isEmpty() && !unreported.isEmpty()) {
      // Their groups are unknown: any group of any rollout could be the one they take over.
      return Optional.of(
          !explain
              ? ""
              : String.format(
                  "event %s lists VMs that have not reported it and Azure's inventory does not"
                      + " place: %s. IMDS would release them too, and the fleet cannot count"
                      + " them in their groups",
                  eventId, String.join(", ", unreported)));
    }
    for (Rollout r : constraints.values()) {
      List<String> groupBy = r.spec().groupBy();
      DownCounts.Down d = down.of(groupBy, r.spec().settle(), now, entries, w);
      // Every group the event's VMs are in must have room, those already down included: the
      // event can keep a VM down after what took it down first is over.
      // (In each group the fleet's inputs give it now: its view's, and the inventory's.)
      Map<String, Integer> more = new LinkedHashMap<>();
      for (ListedVms.Listed l : listed) {
        for (String g : down.groupsOf(l.vmId(), groupBy, w)) {
          more.merge(g, d.isDown(l.vmKey()) ? 0 : 1, Integer::sum);
        }
      }
      long unknown = d.byName() + unreported.size();
      for (Map.Entry<String, Integer> g : more.entrySet()) {
        int limit = limit(r, g.getKey(), w, (int) unknown);
        int already = d.already(g.getKey());
        if (already + g.getValue() > limit) {
          return Optional.of(
              !explain
                  ? ""
                  : String.format(
                      "event %s would make %d more VM(s) of group %s unavailable, %d already are:"
                          + " more than rollout %s allows (%d)",
                      eventId, g.getValue(), g.getKey(), already, r.id(), limit));
        }
      }
    }
    return Optional.empty();
  }

  boolean noRoom(Rollout r, String group, String vmKey, World w, Instant now) {
    DownCounts.Down d = down.of(r.spec().groupBy(), r.spec().settle(), now, entries, w);
    // A VM down already takes no more room.
    return !d.isDown(vmKey) && d.already(group) + 1 > limit(r, group, w, (int) d.byName());
  }

  /** Rollout {@code r}'s limit for a group now: the smaller of the recorded and the current. */
  int limit(Rollout r, String group, World w, int unknownVms) {
    int size;
    if (group.equals(Ledger.UNKNOWN_GROUP)) {
      size = unknownVms;
    } else {
      String memo = String.join(",", r.spec().groupBy()) + "|" + group;
      size = groupSizes.computeIfAbsent(memo, k -> w.groupSize(r.spec().groupBy(), group));
    }
    int current = r.spec().limit(Math.max(1, size));
    if (!group.equals(Ledger.UNKNOWN_GROUP)) {
      met.computeIfAbsent(r.id(), id -> new HashMap<>()).merge(group, current, Math::min);
    }
    Integer recorded = r.groupLimits().get(group);
    return recorded == null ? current : Math.min(recorded, current);
  }

  /**
   * The limits the checks computed for this rollout's groups, by group (what {@link #limit} met).
   */
  Map<String, Integer> met(String rolloutId) {
    return met.getOrDefault(rolloutId, Map.of());
  }

  /** A release recorded this entry: counted in the same step. */
  void released(LedgerEntry e, Instant now) {
    down.released(e, now);
  }

  /** The entries changed otherwise: counted again when next asked. */
  void changed() {
    down.clear();
  }
}
