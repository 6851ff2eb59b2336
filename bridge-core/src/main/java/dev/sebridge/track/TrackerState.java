package dev.sebridge.track;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the agent has reported so far: the events of the last document it fully processed, keyed by
 * lower-case EventId. Persisted under {@code state.dir} after every change.
 *
 * @param incarnation DocumentIncarnation of the last processed document, or -1 before the first
 * @param observedAt when that document was read, or null
 * @param events known events by {@link dev.sebridge.imds.ScheduledEvent#key()}, in document order
 */
public record TrackerState(long incarnation, Instant observedAt, Map<String, KnownEvent> events) {
  public TrackerState {
    events = Collections.unmodifiableMap(new LinkedHashMap<>(events));
  }

  public static TrackerState initial() {
    return new TrackerState(-1, null, Map.of());
  }
}
