package dev.sebridge.fleet.streams;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Since when each event a policy's rollout holds has been missing from this instance's views (no
 * view at all, open or closed). A rollout sheds such an event only once it has been missing for
 * {@link #FOR}: the views forgot it after it closed, not an instance whose global views are a
 * moment behind (the rollouts task moved to it). Shed at the first look, a pending event left its
 * rollout, and ran at its NotBefore without it.
 *
 * <p>In memory, per rollouts task: a task that moves starts again from nothing, so an event is shed
 * no sooner than {@link #FOR} after the task came. Retention: one entry per event missing at the
 * last retention check, dropped once the event is seen or shed.
 */
final class MissingEvents {
  /** How long an event is missing before it is taken for forgotten. */
  static final Duration FOR = Duration.ofMinutes(10);

  private final Map<String, Instant> since = new HashMap<>();

  /** Whether the event, missing now, has been missing since {@link #FOR} ago. */
  boolean longMissing(String eventKey, Instant now) {
    return !now.isBefore(since.computeIfAbsent(eventKey, k -> now).plus(FOR));
  }

  /** Forgets every event but these (missing at this check, and not shed). */
  void keepOnly(Set<String> missing) {
    since.keySet().retainAll(missing);
  }

  int size() {
    return since.size();
  }
}
