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
 * <p>A VM down counts in the group its entry recorded (its attributes when the fleet entered it,
 * and each place a step saw it in since: {@link LedgerEntry#seenIn}) and in each group the fleet's
 * inputs give it now: its view's, and Azure's inventory's where it lists the VM ({@link
 * World#inventoryAttribute}). A VM moved to another resource group while down is unavailable in the
 * group it joined, and its view, stamped from its agent's last envelope, says so only once it is
 * back; the inventory says so at its next refresh. Each other group is an over-count, never an
 * under-count.
 */
final class DownCounts {
  /** Unavailable VMs by vmKey with their groups, counts by group, how many counted by name. */
  static final class Down {
    private final List<String> groupBy;
    private final Duration settle;
    private final java.util.function.Function<String, Collection<String>> current;
    private final Map<String, Set<String>> groupsOf = new HashMap<>();
    private final Map<String, Integer> count = new HashMap<>();
    private long byName;

    /**
     * @param current a VM's groups as the fleet's inputs give it now, by vmId
     */
    private Down(
        List<String> groupBy,
        Duration settle,
        java.util.function.Function<String, Collection<String>> current) {
      this.groupBy = groupBy;
      this.settle = settle;
      this.current = current;
    }

    private void add(LedgerEntry e, Instant now) {
      if (!e.unavailable(settle, now)) {
        return;
      }
      boolean byName = dev.sebridge.fleet.model.Acknowledgement.byName(e.vmKey());
      // A VM known by name only is one VM per event: two VMs of one name in two resource groups,
      // each in its own event, are two (counted as one, a group showed one fewer down than it had).
      // The same VM in two events then counts twice: an over-count, never an under-count.
      String vm =
          byName
              ? e.vmKey() + "|" + dev.sebridge.fleet.model.EventIds.lower(e.eventId())
              : e.vmKey();
      Set<String> groups = groupsOf.get(vm);
      if (groups == null) {
        groups = new HashSet<>(2);
        groupsOf.put(vm, groups);
        if (byName) {
          this.byName++;
        }
      }
      count(groups, e.group(groupBy)); // where it was released
      if (!e.seenIn().isEmpty()) {
        for (String g : e.groups(groupBy)) {
          count(groups, g); // and where a step saw it since
        }
      }
      if (e.vmId() != null && !groupBy.isEmpty()) {
        for (String g : current.apply(e.vmId())) {
          count(groups, g);
        }
      }
    }

    private void count(Set<String> groups, String group) {
      if (groups.add(group)) {
        count.merge(group, 1, Integer::sum);
      }
    }

    /**
     * Whether this VM is down already (it takes no more room in its groups). Never for a VM known
     * by name only: which VM of that name an event lists is not known.
     */
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
  // groupBy -> vmId -> its groups now
  private final Map<List<String>, Map<String, Collection<String>>> groups = new HashMap<>();
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
          Down d = new Down(groupBy, settle, vmId -> groupsOf(vmId, groupBy, w));
          entries.forEach(e -> d.add(e, now));
          return d;
        });
  }

  /**
   * A VM's groups under a groupBy now, read once per step: its view's, and Azure's inventory's when
   * it lists the VM and puts it elsewhere (one or two).
   */
  Collection<String> groupsOf(String vmId, List<String> groupBy, World w) {
    if (vmId == null || groupBy.isEmpty()) {
      return List.of(ListedVms.group(vmId, Map.of(), groupBy));
    }
    return groups
        .computeIfAbsent(groupBy, k -> new HashMap<>())
        .computeIfAbsent(
            vmId,
            k -> {
              String view = ListedVms.group(vmId, a -> w.attribute(vmId, a), groupBy);
              if (!w.inventoryLists(vmId)) {
                return List.of(view);
              }
              String azure = ListedVms.group(vmId, a -> w.inventoryAttribute(vmId, a), groupBy);
              return azure.equals(view) ? List.of(view) : List.of(view, azure);
            });
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
