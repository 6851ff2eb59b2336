package dev.sebridge.imds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One event of a scheduled events document. The verbatim JSON is kept in {@link #raw()} so that
 * unknown fields and values pass through; the other components are the parsed fields the agent
 * reasons about. EventType and EventStatus are strings: IMDS adds values over time.
 *
 * @param eventId as IMDS wrote it (compare with {@link #key()}: EventIds are case-insensitive)
 * @param eventType Freeze, Reboot, Redeploy, Preempt, Terminate, or a newer value; may be null
 * @param eventStatus Scheduled, Started, or a newer value
 * @param resources VM names the event affects
 * @param notBefore NotBefore normalized to UTC; null when empty or unparsable
 * @param raw the event object exactly as received
 */
public record ScheduledEvent(
    String eventId,
    String eventType,
    String eventStatus,
    List<String> resources,
    Instant notBefore,
    ObjectNode raw) {

  public static final String SCHEDULED = "Scheduled";
  public static final String STARTED = "Started";

  public ScheduledEvent {
    resources = List.copyOf(resources);
  }

  /** The EventId in lower case: the identity of an event. */
  public String key() {
    return eventId.toLowerCase(Locale.ROOT);
  }

  public boolean isScheduled() {
    return SCHEDULED.equalsIgnoreCase(eventStatus);
  }

  public boolean isStarted() {
    return STARTED.equalsIgnoreCase(eventStatus);
  }

  /** Whether this VM (by name, case-insensitive as Azure names are) is in Resources. */
  public boolean lists(String vmName) {
    return vmName != null && resources.stream().anyMatch(r -> r.equalsIgnoreCase(vmName));
  }

  public Optional<String> eventSource() {
    return text("EventSource");
  }

  /** DurationInSeconds as a number, also when IMDS (or a proxy of it) wrote a numeric string. */
  public OptionalInt durationInSeconds() {
    JsonNode d = raw.get("DurationInSeconds");
    if (d == null || d.isNull()) {
      return OptionalInt.empty();
    }
    if (d.isIntegralNumber() && d.canConvertToInt()) {
      return OptionalInt.of(d.intValue());
    }
    if (d.isTextual()) {
      try {
        return OptionalInt.of(Integer.parseInt(d.asText().trim()));
      } catch (NumberFormatException e) {
        return OptionalInt.empty();
      }
    }
    return OptionalInt.empty();
  }

  /** NotBefore exactly as received ("" once Started). */
  public String notBeforeRaw() {
    return text("NotBefore").orElse("");
  }

  private Optional<String> text(String field) {
    JsonNode n = raw.get(field);
    return n == null || n.isNull() ? Optional.empty() : Optional.of(n.asText());
  }
}
