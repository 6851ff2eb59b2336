package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.imds.NotBefore;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads Azure's central scheduled-event deliveries defensively, because Microsoft's own pages
 * disagree about them (docs/fleet.md, "VMs without an agent"):
 *
 * <ul>
 *   <li>either schema Event Grid delivers in: its own ({@code eventType}, {@code eventTime}) or
 *       CloudEvents 1.0 ({@code specversion}, {@code type}, {@code time}); one event or an array;
 *   <li>an event is a VM's scheduled event by {@code data.resourceInfo.type} ({@code
 *       microsoft.maintenance/scheduledevents}, any case) and {@code ResourceType} ({@code
 *       VirtualMachine}), never by the event type alone ({@code ...ScheduledEventEmitted} and
 *       {@code microsoft.maintenance/scheduledevents/write} both appear);
 *   <li>property names in any case ({@code EventId}, {@code eventId});
 *   <li>{@code NotBefore} in RFC 1123 whose weekday may be wrong (the documentation's own example
 *       says "Mon, 19 Sep 2025", a Friday), empty once Started, or ISO-8601;
 *   <li>{@code DurationInSeconds} as a number or a string.
 * </ul>
 *
 * A record that is not JSON, or an event of the right type without an EventId, a known status or
 * its resource id, is {@link Delivery.Malformed}: counted and logged by the caller, never read as
 * "no event".
 */
public final class CentralEventParser {
  static final String SCHEDULED_EVENTS_TYPE = "microsoft.maintenance/scheduledevents";
  static final String VIRTUAL_MACHINE = "VirtualMachine";

  private final ObjectMapper mapper;

  public CentralEventParser(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** Every delivery in one record (Event Grid may put several events in one array). */
  public List<Delivery> parse(byte[] record) {
    JsonNode root;
    try {
      root = mapper.readTree(record);
    } catch (JsonProcessingException e) {
      return List.of(new Delivery.Malformed(null, "not JSON: " + e.getOriginalMessage()));
    } catch (IOException e) {
      return List.of(new Delivery.Malformed(null, "not JSON: " + e.getMessage()));
    }
    if (root == null || root.isMissingNode()) {
      return List.of(new Delivery.Malformed(null, "empty record"));
    }
    if (root.isArray()) {
      List<Delivery> all = new ArrayList<>();
      root.forEach(e -> all.add(one(e)));
      return all.isEmpty()
          ? List.of(new Delivery.Malformed(null, "an empty array"))
          : List.copyOf(all);
    }
    return List.of(one(root));
  }

  /** One event in either schema. */
  Delivery one(JsonNode e) {
    if (!e.isObject()) {
      return new Delivery.Malformed(null, "an event is not a JSON object");
    }
    String id = text(e, "id");
    JsonNode data = e.get("data");
    if (data == null || !data.isObject()) {
      return e.has("data_base64")
          ? new Delivery.Malformed(id, "binary data (data_base64) is not a scheduled event")
          : new Delivery.Malformed(id, "no data object");
    }
    JsonNode info = field(data, "resourceInfo");
    if (info == null || !info.isObject()) {
      return new Delivery.Ignored(id, "no data.resourceInfo: " + kind(e));
    }
    String type = text(info, "type");
    if (type == null || !type.trim().equalsIgnoreCase(SCHEDULED_EVENTS_TYPE)) {
      return new Delivery.Ignored(id, "resourceInfo.type " + type + ": " + kind(e));
    }
    JsonNode p = field(info, "properties");
    if (p == null || !p.isObject()) {
      return new Delivery.Malformed(id, "a scheduled event without resourceInfo.properties");
    }
    String resourceType = text(p, "ResourceType");
    if (resourceType == null) {
      return new Delivery.Malformed(id, "no ResourceType");
    }
    if (!resourceType.trim().equalsIgnoreCase(VIRTUAL_MACHINE)) {
      return new Delivery.Ignored(id, "ResourceType " + resourceType);
    }
    return event(id, e, info, p);
  }

  private Delivery event(String id, JsonNode e, JsonNode info, JsonNode p) {
    String eventId = text(p, "EventId");
    String name = text(info, "name");
    if (eventId == null || eventId.isBlank()) {
      return new Delivery.Malformed(id, "no EventId");
    }
    if (name != null && !name.isBlank() && !name.trim().equalsIgnoreCase(eventId.trim())) {
      return new Delivery.Malformed(
          id, "resourceInfo.name " + name + " is not the EventId " + eventId);
    }
    String resourceId = text(info, "id");
    if (resourceId == null
        || !resourceId
            .toLowerCase(Locale.ROOT)
            .endsWith(
                AzureScheduledEvent.SCHEDULED_EVENTS + eventId.trim().toLowerCase(Locale.ROOT))) {
      return new Delivery.Malformed(
          id, "resourceInfo.id " + resourceId + " is not the scheduled event " + eventId);
    }
    String statusText = text(p, "EventStatus");
    var status = AzureEventStatus.of(statusText);
    if (status.isEmpty()) {
      return new Delivery.Malformed(id, "EventStatus " + statusText + " is not known");
    }
    String eventType = text(p, "EventType");
    if (eventType == null || eventType.isBlank()) {
      return new Delivery.Malformed(id, "no EventType");
    }
    JsonNode resources = field(p, "Resources");
    if (resources == null || !resources.isArray()) {
      return new Delivery.Malformed(id, "Resources is not a list");
    }
    List<String> names = new ArrayList<>();
    for (JsonNode r : resources) {
      if (!r.isTextual() || r.asText().isBlank()) {
        return new Delivery.Malformed(id, "Resources holds " + r + ", not a VM name");
      }
      names.add(r.asText().trim());
    }
    Integer duration = duration(field(p, "DurationInSeconds"));
    if (duration == null) {
      return new Delivery.Malformed(
          id, "DurationInSeconds " + field(p, "DurationInSeconds") + " is not a number");
    }
    return new Delivery.Event(
        new AzureScheduledEvent(
            id,
            eventId.trim(),
            resourceId.trim(),
            status.get(),
            eventType.trim(),
            text(p, "EventSource"),
            NotBefore.parse(text(p, "NotBefore")).orElse(null),
            duration,
            text(p, "Description"),
            names,
            text(info, "location"),
            time(e)));
  }

  /** -1 when not given; null when given and not a whole number. */
  private static Integer duration(JsonNode d) {
    if (d == null || d.isNull() || (d.isTextual() && d.asText().isBlank())) {
      return -1;
    }
    if (d.isIntegralNumber() && d.canConvertToInt()) {
      return d.intValue();
    }
    if (d.isTextual()) {
      try {
        return Integer.parseInt(d.asText().trim());
      } catch (NumberFormatException notANumber) {
        return null;
      }
    }
    return null;
  }

  /** The delivery's time: {@code eventTime} (Event Grid) or {@code time} (CloudEvents). */
  private static Instant time(JsonNode e) {
    String t = text(e, e.has("specversion") ? "time" : "eventTime");
    if (t == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeParseException e2) {
      return null;
    }
  }

  private static String kind(JsonNode e) {
    String t = text(e, e.has("specversion") ? "type" : "eventType");
    return t == null ? "an event without a type" : t;
  }

  /** A field by its name in any case (the exact spelling first). */
  static JsonNode field(JsonNode obj, String name) {
    JsonNode exact = obj.get(name);
    if (exact != null) {
      return exact;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = obj.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      if (f.getKey().equalsIgnoreCase(name)) {
        return f.getValue();
      }
    }
    return null;
  }

  /** A text field (a number is read as its text), null when absent or null. */
  static String text(JsonNode obj, String name) {
    JsonNode n = field(obj, name);
    return n == null || n.isNull() || n.isContainerNode() ? null : n.asText();
  }
}
