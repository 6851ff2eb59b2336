package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventIds;
import dev.sebridge.fleet.model.EventView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The closed events' views the {@link IndexContents} keeps: packed ({@link PackedEvent}), a day of
 * them at 100,000 VMs being some 160,000 views no step reads but those its ledger entries, rollouts
 * and requests name; and those read in this step and the one before, read back once. The views a
 * step reads are nearly always those the next one reads again: each step forgets those the one
 * before did not read, and a change of an event's view forgets it at once. Used by one thread at a
 * time, as its index.
 */
final class ClosedViews {
  private final Map<String, PackedEvent> packed = new HashMap<>();
  // Read this step and the one before, by key and by the view's own spelling.
  private Map<String, EventView> read = new HashMap<>();
  private Map<String, EventView> readBefore = new HashMap<>();

  /** The event's view is {@code p} now (null: it is open, or gone): what was read of it is not. */
  void put(String key, PackedEvent p) {
    if (p == null) {
      packed.remove(key);
    } else {
      packed.put(key, p);
    }
    forget(read, key);
    forget(readBefore, key);
  }

  /**
   * A closed view read in this step, by its key or its own spelling (a step asks by the id as its
   * entries and rollouts spell it, found at once as an open one is); null when none was.
   */
  EventView readNow(String id) {
    return read.get(id);
  }

  /** A closed event's view by its key, read back once a step at most; null when there is none. */
  EventView view(String key) {
    EventView e = read.get(key);
    if (e != null) {
      return e;
    }
    PackedEvent p = packed.get(key);
    if (p == null) {
      return null;
    }
    e = readBefore.get(key);
    if (e == null) {
      e = p.view();
    }
    remember(key, e);
    return e;
  }

  /** The view of the closed event of {@code key}, read in this step (by key and spelling). */
  void remember(String key, EventView e) {
    forget(readBefore, key);
    read.put(key, e);
    String spelled = e.eventId();
    if (spelled != null && !spelled.equals(key) && EventIds.lower(spelled).equals(key)) {
      read.put(spelled, e);
    }
  }

  /** A closed view no longer kept read: by its key and its spelling. */
  private static void forget(Map<String, EventView> m, String key) {
    EventView v = m.remove(key);
    if (v != null && v.eventId() != null) {
      m.remove(v.eventId(), v);
    }
  }

  /** A step begins: the closed views the step before did not read are forgotten. */
  void stepped() {
    readBefore = read;
    read = new HashMap<>();
  }

  /**
   * Takes over the views {@code before} read in its last two steps whose packed views these are too
   * (the same views): a whole read that replaces the index does not read them all back.
   */
  void keepRead(ClosedViews before) {
    for (Map<String, EventView> m : List.of(before.readBefore, before.read)) {
      m.forEach(
          (k, v) -> {
            PackedEvent p = packed.get(k);
            if (p != null && p.equals(before.packed.get(k))) {
              remember(k, v);
            }
          });
    }
  }

  /** The closed events' keys. */
  Set<String> keys() {
    return packed.keySet();
  }

  /** Their packed views, by key. */
  Map<String, PackedEvent> packed() {
    return packed;
  }

  int size() {
    return packed.size();
  }
}
