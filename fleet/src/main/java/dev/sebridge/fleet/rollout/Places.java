package dev.sebridge.fleet.rollout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The places a {@link LedgerEntry}'s VM was seen in while it counts ({@link LedgerEntry#seenIn}):
 * what a step's views and Azure's inventory show, compared as groups name them, and kept when an
 * event is released again.
 */
final class Places {
  private Places() {}

  /**
   * The entry with the places its VM is in now kept ({@link LedgerEntry#seen}): its view's, and
   * Azure's inventory's where it lists it. Each step asks this of every entry: a place is compared
   * attribute by attribute first, and a map made only when it differs from the entry's.
   */
  static LedgerEntry seenNow(LedgerEntry e, World w) {
    String vmId = e.vmId();
    if (!same(e.attributes(), a -> w.attribute(vmId, a))) {
      e = e.seen(ListedVms.attributes(vmId, w));
    }
    if (w.inventoryLists(vmId) && !same(e.attributes(), a -> w.inventoryAttribute(vmId, a))) {
      e = e.seen(inventoryPlace(vmId, w));
    }
    return e;
  }

  /** Whether two places are one as groups name them (each value folded, a blank one as none). */
  static boolean samePlace(Map<String, String> a, Map<String, String> b) {
    return same(a, b::get);
  }

  private static boolean same(
      Map<String, String> place, java.util.function.Function<String, String> now) {
    for (String a : ListedVms.ATTRIBUTES) {
      String was = place.get(a);
      String is = now.apply(a);
      // (the same text, as mostly: nothing folded)
      if (!java.util.Objects.equals(was, is) && !ListedVms.value(was).equals(ListedVms.value(is))) {
        return false;
      }
    }
    return true;
  }

  /** The VM's place as Azure's inventory gives it (empty when it does not list the VM). */
  static Map<String, String> inventoryPlace(String vmId, World w) {
    Map<String, String> m = new TreeMap<>();
    if (vmId != null && w.inventoryLists(vmId)) {
      for (String a : ListedVms.ATTRIBUTES) {
        String v = w.inventoryAttribute(vmId, a);
        if (v != null) {
          m.put(a, v);
        }
      }
    }
    return m;
  }

  /**
   * The entries of these VMs for the event, entered again since ({@link Ledger#releaseAgain}), with
   * the places the earlier ones were released in and seen in since: views that entered them again
   * may be from before a move the earlier ones saw. Those that gained a place.
   */
  static List<LedgerEntry> keep(
      List<LedgerEntry> earlier, String eventId, Collection<LedgerEntry> entries) {
    List<LedgerEntry> out = new ArrayList<>();
    for (LedgerEntry before : earlier) {
      if (before.vmId() == null) {
        continue;
      }
      for (LedgerEntry now : entries) {
        if (before.vmId().equals(now.vmId()) && now.eventId().equalsIgnoreCase(eventId)) {
          LedgerEntry kept = now.seen(before.attributes());
          for (Map<String, String> p : before.seenIn()) {
            kept = kept.seen(p);
          }
          if (!kept.equals(now)) {
            out.add(kept);
          }
        }
      }
    }
    return out;
  }
}
