package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The open events with a NotBefore, by it (then by key), as the {@link IndexContents} keeps them:
 * those due are a range, not a scan of every event.
 */
final class DueEvents {
  private record Due(Instant notBefore, String key) implements Comparable<Due> {
    static Due of(String key, EventView e) {
      return e == null || !e.open() || e.notBefore() == null ? null : new Due(e.notBefore(), key);
    }

    @Override
    public int compareTo(Due o) {
      int c = notBefore.compareTo(o.notBefore);
      return c != 0 ? c : key.compareTo(o.key);
    }
  }

  private final NavigableSet<Due> byNotBefore = new TreeSet<>();

  /** The event of {@code key} was {@code old} and is {@code now} (either null: none). */
  void moved(String key, EventView old, EventView now) {
    Due was = Due.of(key, old);
    if (was != null) {
      byNotBefore.remove(was);
    }
    Due due = Due.of(key, now);
    if (due != null) {
      byNotBefore.add(due);
    }
  }

  /** The keys of the open events whose NotBefore is at or before {@code now}, the soonest first. */
  List<String> due(Instant now) {
    List<String> out = new ArrayList<>();
    for (Due d : byNotBefore) {
      if (d.notBefore().isAfter(now)) {
        break;
      }
      out.add(d.key());
    }
    return out;
  }
}
