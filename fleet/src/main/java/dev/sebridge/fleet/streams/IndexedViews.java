package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

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
