package dev.sebridge.fleet.rollout;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@link Ledger}'s index of its entries by vmId under the key the same VM's entry by name would
 * have: whether a release of a VM named in an event is entered already by its vmId. Built from the
 * entries when first asked; entries by vmId are only added (told here) or dropped, which leaves a
 * stale key that is looked up and found gone.
 */
final class EnteredByVmId {
  private final Collection<LedgerEntry> entries; // the ledger's, as they change
  private Map<String, String> byName; // null until first asked

  EnteredByVmId(Collection<LedgerEntry> entries) {
    this.entries = entries;
  }

  /** The key of the entry by vmId of the VM and release that {@code byNameKey} names, or "". */
  String keyOf(String byNameKey) {
    if (byName == null) {
      byName = new HashMap<>();
      entries.forEach(this::entered);
    }
    return byName.getOrDefault(byNameKey, "");
  }

  /** An entry was made or renamed: kept in the index once it is built. */
  void entered(LedgerEntry e) {
    if (byName != null && e.vmId() != null && e.name() != null) {
      byName.put(LedgerEntry.key(LedgerEntry.vmKey(null, e.name()), e.eventId()), e.key());
    }
  }
}
