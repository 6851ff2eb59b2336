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

  /** At most this many events in one record; more is malformed (nothing Azure sends). */
  static final int MAX_EVENTS_PER_RECORD = 1000;

  /** Reasons quote the input at most this long. */
  static final int MAX_QUOTE = 200;

  /** Every delivery in one record (Event Grid may put several events in one array). */
  public List<Delivery> parse(byte[] record) {
    return parse(record, name -> null);
  }

  /**
   * Every delivery in one record; {@code header} gives the record's headers by name, for a
   * CloudEvent in binary mode (its attributes in headers, the body its data only: the id is then
   * {@code ce_id}, or {@code cloudEvents:id} as AMQP names it).
   */
  public List<Delivery> parse(byte[] record, java.util.function.Function<String, String> header) {
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
    if (root.isArray() && root.size() > MAX_EVENTS_PER_RECORD) {
      return List.of(new Delivery.Malformed(null, root.size() + " events in one record"));
    }
    if (root.isObject() && field(root, "resourceInfo") != null && !root.has("data")) {
      return List.of(one(binaryMode(root, header)));
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

  /**
   * A row of Resource Graph's {@code maintenanceresources} (id, name, type, location, properties:
   * what Event Grid's {@code resourceInfo} carries), read as of {@code at} by the same rules.
   */
  public Delivery row(JsonNode row, java.time.Instant at) {
    com.fasterxml.jackson.databind.node.ObjectNode e = mapper.createObjectNode();
    e.put("specversion", "1.0");
    e.put("id", "resource-graph");
    e.put("type", "maintenanceresources");
    e.put("time", at.toString());
    e.putObject("data").set("resourceInfo", row);
    return one(e);
  }

  /** A CloudEvent in binary mode: the body is the data, the attributes are headers. */
  private JsonNode binaryMode(JsonNode data, java.util.function.Function<String, String> header) {
    String id = header.apply("ce_id");
    com.fasterxml.jackson.databind.node.ObjectNode e = mapper.createObjectNode();
    e.put("specversion", "1.0");
    e.put("id", id != null ? id : header.apply("cloudEvents:id"));
    e.put("type", header.apply("ce_type"));
    e.put("time", header.apply("ce_time"));
    e.set("data", data);
    return e;
  }

  /** One event in either schema. */
  Delivery one(JsonNode e) {
    if (!e.isObject()) {
      return new Delivery.Malformed(null, "an event is not a JSON object");
    }
    String id = quote(text(e, "id"));
    JsonNode data = e.get("data");
    if (data != null && data.isTextual()) {
      try {
        data = mapper.readTree(data.asText());
      } catch (JsonProcessingException notJson) {
        return new Delivery.Malformed(id, "data is a string that is not JSON");
      }
    }
    if (data == null || !data.isObject()) {
      return e.has("data_base64")
          ? new Delivery.Malformed(id, "binary data (data_base64) is not a scheduled event")
          : new Delivery.Malformed(id, "no data object");
    }
    JsonNode info = field(data, "resourceInfo");
    if (info == null || !info.isObject()) {
      return kind(e).toLowerCase(Locale.ROOT).contains("scheduledevent")
          ? new Delivery.Malformed(id, "a " + kind(e) + " without data.resourceInfo")
          : new Delivery.Ignored(id, "no data.resourceInfo: " + kind(e));
    }
    String type = text(info, "type");
    if (type == null || !type.trim().equalsIgnoreCase(SCHEDULED_EVENTS_TYPE)) {
      return new Delivery.Ignored(id, "resourceInfo.type " + quote(type) + ": " + kind(e));
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
      return new Delivery.Ignored(id, "ResourceType " + quote(resourceType));
    }
    return event(id, e, info, p);
  }

  private Delivery event(String id, JsonNode e, JsonNode info, JsonNode p) {
    String eventId = text(p, "EventId");
    String name = text(info, "name");
    if (eventId == null || eventId.isBlank()) {
      return new Delivery.Malformed(id, "no EventId");
    }
    String keyProblem = dev.sebridge.fleet.model.StoreKeys.problem(eventId.trim());
    if (keyProblem != null) {
      return new Delivery.Malformed(id, "EventId: " + keyProblem);
    }
    if (name != null && !name.isBlank() && !name.trim().equalsIgnoreCase(eventId.trim())) {
      return new Delivery.Malformed(
          id, "resourceInfo.name " + quote(name) + " is not the EventId " + quote(eventId));
    }
    String resourceId = text(info, "id");
    resourceId = resourceId == null ? null : resourceId.trim();
    if (!AzureScheduledEvent.isScheduledEventId(resourceId, eventId.trim())) {
      return new Delivery.Malformed(
          id,
          "resourceInfo.id "
              + quote(resourceId)
              + " is not the scheduled event "
              + quote(eventId)
              + " of a VM, scale set or availability set");
    }
    String statusText = text(p, "EventStatus");
    var status = AzureEventStatus.of(statusText);
    if (status.isEmpty()) {
      return new Delivery.Malformed(id, "EventStatus " + quote(statusText) + " is not known");
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
        return new Delivery.Malformed(
            id, "Resources holds " + quote(r.toString()) + ", not a VM name");
      }
      names.add(r.asText().trim());
    }
    if (names.isEmpty() && !status.get().over()) {
      return new Delivery.Malformed(id, "a " + status.get() + " event that lists no VM");
    }
    String notBeforeText = text(p, "NotBefore");
    java.time.Instant notBefore = NotBefore.parse(notBeforeText).orElse(null);
    if (notBefore == null && notBeforeText != null && !notBeforeText.isBlank()) {
      return new Delivery.Malformed(
          id, "NotBefore " + quote(notBeforeText) + " is not a date any producer writes");
    }
    return new Delivery.Event(
        new AzureScheduledEvent(
            id,
            eventId.trim(),
            resourceId.trim(),
            status.get(),
            eventType.trim(),
            text(p, "EventSource"),
            notBefore,
            duration(field(p, "DurationInSeconds")),
            text(p, "Description"),
            names,
            text(info, "location"),
            time(e)));
  }

  /**
   * -1 when not given or not a whole number of seconds (the duration is advisory: an event is not
   * lost over it); {@code 5.0} and {@code "5"} are 5.
   */
  private static int duration(JsonNode d) {
    if (d == null || d.isNull()) {
      return -1;
    }
    if (d.isNumber() && d.canConvertToExactIntegral() && d.canConvertToInt()) {
      return d.intValue();
    }
    if (d.isTextual()) {
      try {
        java.math.BigDecimal n = new java.math.BigDecimal(d.asText().trim());
        return n.stripTrailingZeros().scale() <= 0 ? n.intValueExact() : -1;
      } catch (NumberFormatException | ArithmeticException notWhole) {
        return -1;
      }
    }
    return -1;
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
    return t == null ? "an event without a type" : quote(t);
  }

  /** Input quoted in a reason: at most {@link #MAX_QUOTE} characters. */
  static String quote(String s) {
    return s == null || s.length() <= MAX_QUOTE ? s : s.substring(0, MAX_QUOTE) + "...";
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
