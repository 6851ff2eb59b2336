package dev.sebridge.fleet.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the {@link Ledger}'s limit check ({@link LedgerLimits}) counts within one step ({@code
 * now}): the unavailable VMs by group under each groupBy and settle an active rollout has, and each
 * VM's group as the views show it. Computed once per step and kept up to date as the step releases
 * ({@link #released}), so checking every pending event of a 10,000-VM rollout does not scan every
 * entry each time; any other change of the entries calls {@link #clear}.
 *
 * <p>A VM down counts in the group it was in when released and, when the views put it elsewhere now
 * (moved to another resource group while down, or its attributes learnt since: the inventory
 * stamped its view), in that group too: it is unavailable in the group it is in now, and the group
 * it left may still be the one its operators count it in.
 */
final class DownCounts {
  /** Unavailable VMs by vmKey with their groups, counts by group, how many counted by name. */
  static final class Down {
    private final List<String> groupBy;
    private final Duration settle;
    private final java.util.function.Function<String, String> current;
    private final Map<String, Set<String>> groupsOf = new HashMap<>();
    private final Map<String, Integer> count = new HashMap<>();
    private long byName;

    /**
     * @param current a VM's group as the views show it now, by vmId
     */
    private Down(
        List<String> groupBy,
        Duration settle,
        java.util.function.Function<String, String> current) {
      this.groupBy = groupBy;
      this.settle = settle;
      this.current = current;
    }

    private void add(LedgerEntry e, Instant now) {
      if (!e.unavailable(settle, now)) {
        return;
      }
      Set<String> groups = groupsOf.get(e.vmKey());
      if (groups == null) {
        groups = new HashSet<>(2);
        groupsOf.put(e.vmKey(), groups);
        if (dev.sebridge.fleet.model.Acknowledgement.byName(e.vmKey())) {
          byName++;
        }
      }
      count(groups, e.group(groupBy));
      if (e.vmId() != null && !groupBy.isEmpty()) {
        count(groups, current.apply(e.vmId()));
      }
    }

    private void count(Set<String> groups, String group) {
      if (groups.add(group)) {
        count.merge(group, 1, Integer::sum);
      }
    }

    /** Whether this VM is down already (it takes no more room in its groups). */
    boolean isDown(String vmKey) {
      return groupsOf.containsKey(vmKey);
    }

    /**
     * The VMs a group has down: its own, and those counted by name, which could be in any group and
     * take room in every one of them.
     */
    int already(String group) {
      int anywhere = groupBy.isEmpty() ? 0 : count.getOrDefault(Ledger.UNKNOWN_GROUP, 0);
      return count.getOrDefault(group, 0) + (group.equals(Ledger.UNKNOWN_GROUP) ? 0 : anywhere);
    }

    /** How many of the VMs down are counted by name only. */
    long byName() {
      return byName;
    }
  }

  private final Map<String, Down> downs = new HashMap<>();
  private final Map<String, String> groups = new HashMap<>();
  private Instant at;

  /**
   * The VMs down under this groupBy and settle now, counted from the entries once per step; {@code
   * w}, the step's views, places each VM down in its group now as well.
   */
  Down of(
      List<String> groupBy,
      Duration settle,
      Instant now,
      Collection<LedgerEntry> entries,
      World w) {
    if (!now.equals(at)) {
      downs.clear();
      groups.clear();
      at = now;
    }
    return downs.computeIfAbsent(
        String.join(",", groupBy) + "|" + settle,
        k -> {
          Down d = new Down(groupBy, settle, vmId -> groupOf(vmId, groupBy, w));
          entries.forEach(e -> d.add(e, now));
          return d;
        });
  }

  /** A VM's group under a groupBy, read from the views once per step. */
  String groupOf(String vmId, List<String> groupBy, World w) {
    if (vmId == null || groupBy.isEmpty()) {
      return ListedVms.group(vmId, Map.of(), groupBy);
    }
    return groups.computeIfAbsent(
        vmId + "|" + groupBy, k -> ListedVms.group(vmId, a -> w.attribute(vmId, a), groupBy));
  }

  /** A release recorded this entry: counted in the same step, started over in another. */
  void released(LedgerEntry e, Instant now) {
    if (now.equals(at)) {
      downs.values().forEach(d -> d.add(e, now));
    } else {
      downs.clear();
    }
  }

  /** The entries changed otherwise: counted again when next asked. */
  void clear() {
    downs.clear();
  }
}
