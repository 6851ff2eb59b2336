package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.rollout.ListedVms;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Live (not silent) VMs per group, the inventory's unknown VMs left out ({@link VmFacts#counted}),
 * for each grouping a rollout asked for: counted once over the VMs when a grouping is first asked
 * for, then moved VM by VM as their views change ({@link ViewIndex}). Every VM change moves each
 * grouping kept: at most {@link #MOST} are (the active rollouts' groupings; one more forgets them
 * all, and each is counted again when next asked for).
 */
final class GroupCounts {
  static final int MOST = 64;

  private final Map<List<String>, Map<String, Integer>> byGrouping = new HashMap<>();

  /** Forgets every count: the VMs were read whole again. */
  void reset() {
    byGrouping.clear();
  }

  /** The groupings counted now. */
  java.util.Set<List<String>> groupings() {
    return java.util.Set.copyOf(byGrouping.keySet());
  }

  /** The VM's facts changed from {@code old} to {@code now} (either null: not in the views). */
  void moved(String vmId, VmFacts old, VmFacts now) {
    for (Map.Entry<List<String>, Map<String, Integer>> g : byGrouping.entrySet()) {
      if (old != null && old.counted()) {
        g.getValue()
            .computeIfPresent(group(vmId, old, g.getKey()), (k, n) -> n <= 1 ? null : n - 1);
      }
      if (now != null && now.counted()) {
        g.getValue().merge(group(vmId, now, g.getKey()), 1, Integer::sum);
      }
    }
  }

  /** Live VMs of {@code group} under {@code groupBy}. */
  int size(List<String> groupBy, String group, Map<String, VmFacts> vms) {
    Map<String, Integer> counts = byGrouping.get(groupBy);
    if (counts == null) {
      counts = new HashMap<>();
      for (Map.Entry<String, VmFacts> v : vms.entrySet()) {
        if (v.getValue().counted()) {
          counts.merge(group(v.getKey(), v.getValue(), groupBy), 1, Integer::sum);
        }
      }
      if (byGrouping.size() >= MOST) {
        byGrouping.clear();
      }
      byGrouping.put(List.copyOf(groupBy), counts);
    }
    return counts.getOrDefault(group, 0);
  }

  private static String group(String vmId, VmFacts f, List<String> groupBy) {
    return ListedVms.group(vmId, f::attribute, groupBy);
  }
}
