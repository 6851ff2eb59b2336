package dev.sebridge.track;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.MalformedDocumentException;
import dev.sebridge.imds.ScheduledEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes {@link TrackerState} as JSON (the file {@code tracker.json}), with the envelopes
 * of the last change while they are not yet known to be durable in the outbox ({@code unpublished}:
 * the event pipeline's journal, published again after a crash).
 */
public final class TrackerStateCodec {
  static final int FORMAT = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrackerStateCodec() {}

  /** What {@code tracker.json} holds. */
  public record Stored(TrackerState state, List<byte[]> unpublished) {
    public Stored {
      unpublished = List.copyOf(unpublished);
    }
  }

  public static byte[] write(TrackerState s) {
    return write(s, List.of());
  }

  /** The state, and envelope bodies to publish again if the agent dies before they are durable. */
  public static byte[] write(TrackerState s, List<byte[]> unpublished) {
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
    if (!unpublished.isEmpty()) {
      ArrayNode u = root.putArray("unpublished");
      unpublished.forEach(b -> u.add(new String(b, StandardCharsets.UTF_8)));
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The state alone. */
  public static TrackerState read(byte[] content) {
    return readStored(content).state();
  }

  /** Throws {@link IllegalArgumentException} when the content is not a state this code wrote. */
  public static Stored readStored(byte[] content) {
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
      List<byte[]> unpublished = new ArrayList<>();
      root.path("unpublished")
          .forEach(u -> unpublished.add(u.asText().getBytes(StandardCharsets.UTF_8)));
      return new Stored(
          new TrackerState(
              root.path("incarnation").asLong(), instant(root.get("observedAt")), events),
          unpublished);
    } catch (IOException | MalformedDocumentException | DateTimeParseException e) {
      throw new IllegalArgumentException("unreadable tracker state: " + e.getMessage(), e);
    }
  }

  private static Instant instant(JsonNode n) {
    return n == null || n.isNull() ? null : Instant.parse(n.asText());
  }
}
