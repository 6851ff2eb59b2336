package dev.sebridge.fleet.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the {@link Ledger}'s limit check ({@link LedgerLimits}) counts within one step ({@code
 * now}): the unavailable VMs by group under each groupBy and settle an active rollout has, and each
 * VM's group as the views show it. Computed once per step and kept up to date as the step releases
 * ({@link #released}), so checking every pending event of a 10,000-VM rollout does not scan every
 * entry each time; any other change of the entries calls {@link #clear}.
 */
final class DownCounts {
  /** Unavailable VMs by vmKey with their group, counts by group, how many counted by name. */
  static final class Down {
    private final List<String> groupBy;
    private final Duration settle;
    private final Map<String, String> groupOf = new HashMap<>();
    private final Map<String, Integer> count = new HashMap<>();
    private long byName;

    private Down(List<String> groupBy, Duration settle) {
      this.groupBy = groupBy;
      this.settle = settle;
    }

    private void add(LedgerEntry e, Instant now) {
      if (e.unavailable(settle, now) && groupOf.putIfAbsent(e.vmKey(), e.group(groupBy)) == null) {
        count.merge(e.group(groupBy), 1, Integer::sum);
        if (dev.sebridge.fleet.model.Acknowledgement.byName(e.vmKey())) {
          byName++;
        }
      }
    }

    /** Whether this VM is down already (it takes no more room in its group). */
    boolean isDown(String vmKey) {
      return groupOf.containsKey(vmKey);
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

  /** The VMs down under this groupBy and settle now, counted from the entries once per step. */
  Down of(List<String> groupBy, Duration settle, Instant now, Collection<LedgerEntry> entries) {
    if (!now.equals(at)) {
      downs.clear();
      groups.clear();
      at = now;
    }
    return downs.computeIfAbsent(
        String.join(",", groupBy) + "|" + settle,
        k -> {
          Down d = new Down(groupBy, settle);
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
        vmId + "|" + groupBy, k -> ListedVms.group(vmId, ListedVms.attributes(vmId, w), groupBy));
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
