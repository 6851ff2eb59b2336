package dev.sebridge.imds;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a scheduled events document. Strict about the shape that makes it a document ({@code
 * DocumentIncarnation} and {@code Events}, each event with an {@code EventId} and {@code
 * EventStatus}), tolerant about everything else: unknown fields and values are kept. A key twice in
 * any object, at any depth, makes the document malformed: which of the two holds is anybody's guess
 * (two {@code Events}, the second empty, would be read as no events), and IMDS's serializer never
 * writes one.
 */
public final class DocumentParser {
  private static final Logger LOG = LoggerFactory.getLogger(DocumentParser.class);
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          // two "Events" (or two of an event's fields): which one holds is anybody's guess
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private DocumentParser() {}

  public static ScheduledEventsDocument parse(byte[] body) throws MalformedDocumentException {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JacksonException e) {
      throw new MalformedDocumentException("not JSON it can read: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new MalformedDocumentException("unreadable: " + e.getMessage());
    } catch (NumberFormatException e) {
      // Jackson lets this one through for numbers it cannot represent (found by fuzzing:
      // a body of "0E3333...7" with USE_BIG_DECIMAL_FOR_FLOATS).
      throw new MalformedDocumentException("not JSON: " + e.getMessage());
    }
    return parse(root);
  }

  public static ScheduledEventsDocument parse(JsonNode root) throws MalformedDocumentException {
    if (root == null || !root.isObject()) {
      throw new MalformedDocumentException("not a JSON object");
    }
    long incarnation = incarnation(root.get("DocumentIncarnation"));
    JsonNode events = root.get("Events");
    if (events == null || !events.isArray()) {
      throw new MalformedDocumentException("no Events array");
    }
    List<ScheduledEvent> out = new ArrayList<>(events.size());
    Set<String> seen = new HashSet<>();
    for (JsonNode e : events) {
      ScheduledEvent ev = event(e);
      if (!seen.add(ev.key())) {
        // Never seen from IMDS; keep the first rather than lose the whole document.
        LOG.warn(
            "IMDS document {} lists EventId {} twice; keeping the first",
            incarnation,
            ev.eventId());
        continue;
      }
      out.add(ev);
    }
    return new ScheduledEventsDocument(incarnation, out, (ObjectNode) root);
  }

  private static long incarnation(JsonNode n) throws MalformedDocumentException {
    if (n == null || n.isNull()) {
      throw new MalformedDocumentException("no DocumentIncarnation");
    }
    if (n.isIntegralNumber() && n.canConvertToLong() && n.longValue() >= 0) {
      return n.longValue();
    }
    if (n.isTextual()) {
      try {
        long v = Long.parseLong(n.asText().trim());
        if (v >= 0) {
          return v;
        }
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    throw new MalformedDocumentException("DocumentIncarnation is not a non-negative integer: " + n);
  }

  /** Parses one event object (also used to read events back from the agent's state). */
  public static ScheduledEvent event(JsonNode e) throws MalformedDocumentException {
    if (e == null || !e.isObject()) {
      throw new MalformedDocumentException("an event is not a JSON object");
    }
    String id = requiredText(e, "EventId");
    String status = requiredText(e, "EventStatus");
    JsonNode type = e.get("EventType");
    List<String> resources = new ArrayList<>();
    JsonNode res = e.get("Resources");
    if (res != null && !res.isNull()) {
      if (!res.isArray()) {
        throw new MalformedDocumentException("Resources of event " + id + " is not an array");
      }
      res.forEach(r -> resources.add(r.asText()));
    }
    JsonNode nb = e.get("NotBefore");
    String notBefore = nb == null || nb.isNull() ? "" : nb.asText();
    return new ScheduledEvent(
        id,
        type == null || type.isNull() ? null : type.asText(),
        status,
        resources,
        NotBefore.parse(notBefore).orElse(null),
        ((ObjectNode) e).deepCopy());
  }

  private static String requiredText(JsonNode e, String field) throws MalformedDocumentException {
    JsonNode n = e.get(field);
    if (n == null || !n.isTextual() || n.asText().isBlank()) {
      throw new MalformedDocumentException("an event has no " + field);
    }
    return n.asText();
  }
}
