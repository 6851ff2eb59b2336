package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.LedgerEntry;
import dev.sebridge.fleet.rollout.Rollout;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The fleet-wide ledger's entries ({@link FleetTopology#LEDGER_STATE}) for the rollouts task: read
 * from the store once per task, then kept as written. The rollouts processor is the store's only
 * writer and writes through this; a task revived after an aborted transaction is initialised again,
 * and so is this. A step then reads no entry from JSON.
 */
final class LedgerStore {
  private final KeyValueStore<String, LedgerEntry> store;
  private Map<String, LedgerEntry> entries; // null until first read

  LedgerStore(KeyValueStore<String, LedgerEntry> store) {
    this.store = store;
  }

  /**
   * The fleet-wide ledger as of now: the store, what the views show since, and every active
   * rollout's limits.
   */
  Ledger current(GlobalWorld world, Instant now, List<Rollout> active) {
    Ledger ledger = load();
    ledger.observe(world, now);
    active.forEach(ledger::constrain);
    return ledger;
  }

  /** The ledger as stored (a copy the step may change). */
  Ledger load() {
    if (entries == null) {
      // Read whole before it is kept: a read that throws leaves nothing half read behind.
      Map<String, LedgerEntry> read = new TreeMap<>();
      try (KeyValueIterator<String, LedgerEntry> it = store.all()) {
        it.forEachRemaining(kv -> read.put(kv.key, kv.value));
      }
      entries = read;
    }
    return new Ledger(entries);
  }

  /** Writes what the step changed in the ledger: the store, and what this keeps of it. */
  void persist(Ledger ledger) {
    if (entries == null) {
      load();
    }
    try {
      ledger
          .changes(ledger.touched())
          .forEach(
              (k, v) -> {
                if (v == null) {
                  store.delete(k);
                  entries.remove(k);
                } else {
                  store.put(k, v);
                  entries.put(k, v);
                }
              });
    } catch (RuntimeException e) {
      // The store may have what this does not (a write that threw after the store took it): the
      // next step reads the store again.
      entries = null;
      throw e;
    }
  }
}
