package dev.sebridge.track;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.MalformedDocumentException;
import dev.sebridge.imds.ScheduledEvent;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads and writes {@link TrackerState} as JSON (the file {@code tracker.json}). */
public final class TrackerStateCodec {
  static final int FORMAT = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrackerStateCodec() {}

  public static byte[] write(TrackerState s) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("incarnation", s.incarnation());
    root.put("observedAt", s.observedAt() == null ? null : s.observedAt().toString());
    ArrayNode events = root.putArray("events");
    for (KnownEvent k : s.events().values()) {
      ObjectNode e = events.addObject();
      e.set("event", k.event().raw());
      e.put("firstSeenAt", k.firstSeenAt().toString());
      e.put("approvedAt", k.approvedAt() == null ? null : k.approvedAt().toString());
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Throws {@link IllegalArgumentException} when the content is not a state this code wrote. */
  public static TrackerState read(byte[] content) {
    try {
      JsonNode root = JSON.readTree(content);
      if (root == null || !root.isObject() || root.path("format").asInt() != FORMAT) {
        throw new IllegalArgumentException("not a tracker state of format " + FORMAT);
      }
      Map<String, KnownEvent> events = new LinkedHashMap<>();
      for (JsonNode e : root.path("events")) {
        ScheduledEvent ev = DocumentParser.event(e.get("event"));
        events.put(
            ev.key(),
            new KnownEvent(
                ev, Instant.parse(e.path("firstSeenAt").asText()), instant(e.get("approvedAt"))));
      }
      if (!root.path("incarnation").canConvertToLong()) {
        throw new IllegalArgumentException("no incarnation");
      }
      return new TrackerState(
          root.path("incarnation").asLong(), instant(root.get("observedAt")), events);
    } catch (IOException | MalformedDocumentException | DateTimeParseException e) {
      throw new IllegalArgumentException("unreadable tracker state: " + e.getMessage(), e);
    }
  }

  private static Instant instant(JsonNode n) {
    return n == null || n.isNull() ? null : Instant.parse(n.asText());
  }
}
