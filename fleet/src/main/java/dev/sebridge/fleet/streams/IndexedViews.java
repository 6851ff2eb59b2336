package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What the {@link ViewIndex} keeps of each view (a VM's facts, not its view; an open event's view,
 * a closed one's packed; a request's event and the results that did not accept), and how a whole
 * read is compared with what the changes said.
 */
final class IndexedViews {
  private IndexedViews() {}

  /** What the index keeps of a value: null for a store it does not index. */
  static Object keep(String store, Object value, Membership membership) {
    return switch (store) {
      case FleetTopology.VMS_VIEW ->
          value instanceof VmView v ? VmFacts.of(v, membership) : ViewIndex.NONE;
      case FleetTopology.EVENTS_VIEW ->
          value instanceof EventView e ? (e.open() ? e : PackedEvent.of(e)) : ViewIndex.NONE;
      case FleetTopology.INVENTORY_VIEW ->
          membership != Membership.INVENTORY
              ? null
              : Objects.requireNonNullElse(
                  dev.sebridge.fleet.inventory.InventoryPlaces.Place.of(
                      value instanceof dev.sebridge.fleet.model.InventoryVm v ? v : null),
                  ViewIndex.NONE);
      case FleetTopology.REQUESTS_VIEW ->
          value instanceof RequestView r
              ? Objects.requireNonNullElse(RequestFacts.of(r), ViewIndex.NONE)
              : ViewIndex.NONE;
      default -> null;
    };
  }

  /**
   * The stores read whole: the VMs, the inventory's names (who Azure's word on an event counts
   * for), the requests, the events; then the groupings in {@code counted} are counted.
   *
   * @throws RuntimeException when a view cannot be read
   */
  static IndexContents read(
      ViewIndex.Stores stores, Membership membership, Collection<List<String>> counted) {
    return read(stores, membership, counted, false);
  }

  /**
   * @param seed whether the closed views requests sent commands for are kept read as the scan reads
   *     them: the step after reads each of them (the ledger looks at every requested event), and a
   *     day of approved events is 160,000 views to read back at 100,000 VMs. Not for a read that
   *     replaces an index in use: it takes the index's own ({@link IndexContents#keepRead}).
   */
  static IndexContents read(
      ViewIndex.Stores stores,
      Membership membership,
      Collection<List<String>> counted,
      boolean seed) {
    IndexContents c = new IndexContents(membership);
    scan(c, stores.vms(), FleetTopology.VMS_VIEW, membership);
    if (stores.inventory() != null && membership == Membership.INVENTORY) {
      scan(c, stores.inventory(), FleetTopology.INVENTORY_VIEW, membership);
    }
    scan(c, stores.requests(), FleetTopology.REQUESTS_VIEW, membership); // (what events were sent)
    try (KeyValueIterator<String, EventView> it = stores.events().all()) {
      it.forEachRemaining(
          kv -> {
            c.apply(
                FleetTopology.EVENTS_VIEW,
                kv.key,
                keep(FleetTopology.EVENTS_VIEW, kv.value, membership));
            if (seed && kv.value != null && !kv.value.open() && c.sentFor(kv.key)) {
              c.readNow(kv.key, kv.value);
            }
          });
    }
    c.count(counted);
    return c;
  }

  private static <V> void scan(
      IndexContents c, ReadOnlyKeyValueStore<String, V> store, String name, Membership membership) {
    try (KeyValueIterator<String, V> it = store.all()) {
      it.forEachRemaining(kv -> c.apply(name, kv.key, keep(name, kv.value, membership)));
    }
  }

  /** How many keys of one view differ between two reads, those that changed meanwhile aside. */
  static <V> int differences(
      Map<String, V> before, Map<String, V> after, String store, Set<ViewIndex.Key> moving) {
    int n = 0;
    Set<String> keys = new java.util.HashSet<>(before.keySet());
    keys.addAll(after.keySet());
    for (String k : keys) {
      if (!Objects.equals(before.get(k), after.get(k))
          && !moving.contains(new ViewIndex.Key(store, k))) {
        n++;
      }
    }
    return n;
  }
}
