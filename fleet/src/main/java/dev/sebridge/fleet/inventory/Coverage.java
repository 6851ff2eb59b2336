package dev.sebridge.fleet.inventory;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * How much of Azure's inventory the agents cover, counted change by change as the global stores
 * apply the VM views and the inventory (never by scanning them): VMs with a live agent, with a
 * silent one, without one, and VMs whose agents report a vmId the inventory does not list
 * (unknown). Each vmId keeps one byte of state; only a service with an inventory keeps any. The VMs
 * without an agent and the unknown ones are also kept in key order, so that the page's first few of
 * each are read without walking every vmId.
 *
 * <p>Written by the global thread only; read by any.
 */
public final class Coverage implements TopologyObserver {
  private static final int IN_INVENTORY = 1;
  private static final int VIEW = 2;
  private static final int SILENT = 4;

  private final ConcurrentHashMap<String, Byte> state = new ConcurrentHashMap<>();
  private final AtomicIntegerArray byState = new AtomicIntegerArray(8);
  private final NavigableSet<String> withoutAgent = new ConcurrentSkipListSet<>();
  private final NavigableSet<String> unknown = new ConcurrentSkipListSet<>();

  /**
   * The counts.
   *
   * @param inventory VMs the inventory lists
   * @param live of those, with a live agent
   * @param silent of those, with an agent that went silent
   * @param withoutAgent of those, never heard from (or heard from long enough ago to be gone)
   * @param unknown VMs whose agents report a vmId the inventory does not list
   */
  public record Counts(int inventory, int live, int silent, int withoutAgent, int unknown) {}

  /**
   * Views are counted by their vmId as spelt (an upper-case variant of a real vmId is another VM,
   * and unknown), the inventory by its keys (lower case).
   */
  @Override
  public void keyChanged(String store, String key, Object value) {
    switch (store) {
      case FleetTopology.VMS_VIEW ->
          set(key, VIEW | SILENT, value instanceof VmView v ? VIEW | (v.silent() ? SILENT : 0) : 0);
      case FleetTopology.INVENTORY_VIEW -> set(key, IN_INVENTORY, value == null ? 0 : IN_INVENTORY);
      default -> {
        // not counted
      }
    }
  }

  private void set(String vmId, int mask, int bits) {
    state.compute(
        vmId,
        (k, old) -> {
          int before = old == null ? 0 : old;
          int after = (before & ~mask) | bits;
          byState.decrementAndGet(before);
          byState.incrementAndGet(after);
          keep(withoutAgent, k, (after & (IN_INVENTORY | VIEW)) == IN_INVENTORY);
          keep(unknown, k, (after & (IN_INVENTORY | VIEW)) == VIEW);
          return after == 0 ? null : (byte) after;
        });
  }

  private static void keep(NavigableSet<String> set, String vmId, boolean member) {
    if (member) {
      set.add(vmId);
    } else {
      set.remove(vmId);
    }
  }

  public Counts counts() {
    int inventory = 0;
    int live = 0;
    int silent = 0;
    int without = 0;
    int unknown = 0;
    for (int s = 1; s < 8; s++) {
      int n = byState.get(s);
      if ((s & IN_INVENTORY) == 0) {
        unknown += (s & VIEW) != 0 ? n : 0;
        continue;
      }
      inventory += n;
      if ((s & VIEW) == 0) {
        without += n;
      } else if ((s & SILENT) != 0) {
        silent += n;
      } else {
        live += n;
      }
    }
    return new Counts(inventory, live, silent, without, unknown);
  }

  /**
   * The first {@code n} vmIds, in key order, the inventory lists and no agent reports: the same
   * rule as {@link Counts#withoutAgent()}, kept with the counts; reads no store.
   */
  public List<String> firstWithoutAgent(int n) {
    return withoutAgent.stream().limit(n).toList();
  }

  /**
   * Up to {@code n} vmIds without an agent after {@code after} (null: from the first), in order.
   */
  public List<String> withoutAgentAfter(String after, int n) {
    return (after == null ? withoutAgent : withoutAgent.tailSet(after, false))
        .stream().limit(n).toList();
  }

  /**
   * The first {@code n} vmIds, in key order, whose agents report and the inventory does not list:
   * the same rule as {@link Counts#unknown()}.
   */
  public List<String> firstUnknown(int n) {
    return unknown.stream().limit(n).toList();
  }

  /** Whether an agent reports this vmId (as spelt) and the inventory does not list it. */
  public boolean unknown(String vmId) {
    Byte s = state.get(vmId);
    return s != null && (s & (IN_INVENTORY | VIEW)) == VIEW;
  }

  /** Whether an agent of this vmId has a view (live or silent). */
  public boolean hasAgent(String vmId) {
    Byte s = state.get(InventoryVm.key(vmId));
    return s != null && (s & VIEW) != 0;
  }

  @Override
  public void applied(Instant envelopeTime) {}

  @Override
  public void approvedAfter(Duration sinceScheduled) {}
}
