package dev.sebridge.imds;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * A valid scheduled events document: the only thing that may ever be read as "these are the events"
 * (an empty list included).
 *
 * @param incarnation DocumentIncarnation: increases whenever the event list changes
 * @param events the events, in document order
 * @param raw the whole document as received
 */
public record ScheduledEventsDocument(
    long incarnation, List<ScheduledEvent> events, ObjectNode raw) {
  public ScheduledEventsDocument {
    events = List.copyOf(events);
  }
}
