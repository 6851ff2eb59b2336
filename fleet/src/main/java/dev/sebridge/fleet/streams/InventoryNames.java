package dev.sebridge.fleet.streams;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The names of the VMs Azure's inventory lists, kept change by change for the rollouts task's
 * index: whom Azure's central word on an event (which names VMs, not vmIds) is about. One entry per
 * VM the inventory lists; removed with it.
 */
final class InventoryNames {
  private final Map<String, String> byVmId = new HashMap<>();
  private final Map<String, Integer> listed = new HashMap<>();

  /**
   * The VM {@code vmId} is now named {@code name} in lower case (null: no longer listed).
   *
   * @return whether a name was added or removed
   */
  boolean moved(String vmId, String name) {
    String old = name == null ? byVmId.remove(vmId) : byVmId.put(vmId, name);
    if (Objects.equals(old, name)) {
      return false;
    }
    if (old != null) {
      listed.computeIfPresent(old, (n, c) -> c > 1 ? c - 1 : null);
    }
    if (name != null) {
      listed.merge(name, 1, Integer::sum);
    }
    return true;
  }

  /** Whether a VM the inventory lists bears this name (any case). */
  boolean listed(String name) {
    return listed.containsKey(name.toLowerCase(Locale.ROOT));
  }

  void clear() {
    byVmId.clear();
    listed.clear();
  }
}
