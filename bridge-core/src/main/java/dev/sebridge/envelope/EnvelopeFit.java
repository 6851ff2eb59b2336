package dev.sebridge.envelope;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * A scheduled-event envelope within {@link Envelope#MAX_BYTES} ({@link EnvelopeFactory}): the
 * event's Description cut first, then its longest other texts, then its largest unknown containers
 * (a list keeps its shape: entries dropped from its end); each cut is named in {@code
 * data.truncated}.
 */
final class EnvelopeFit {
  private static final String TRUNCATION_MARK = "…[truncated]";

  private EnvelopeFit() {}

  /** Serializes, truncating long texts of the event until the envelope fits. */
  static byte[] fit(ObjectNode ce) {
    byte[] body = bytes(ce);
    if (body.length <= Envelope.MAX_BYTES) {
      return body;
    }
    ObjectNode data = (ObjectNode) ce.get("data");
    ObjectNode event = (ObjectNode) data.get("event");
    var truncated = data.putArray("truncated");
    // Description first, then the longest other texts, until it fits.
    int over = bytes(ce).length - Envelope.MAX_BYTES;
    if (event.path("Description").isTextual()) {
      truncateField(event, "Description", over, truncated);
      body = bytes(ce);
    }
    while (body.length > Envelope.MAX_BYTES) {
      String longest = longestText(event);
      if (longest == null) {
        // Nothing left to cut in the event: drop unknown containers (arrays/objects) last.
        String container = largestContainer(event);
        if (container == null) {
          break;
        }
        JsonNode c = event.get(container);
        if (c.isArray() && c.size() > 1) {
          // Keep the shape (Resources stays a list): drop entries from the end.
          com.fasterxml.jackson.databind.node.ArrayNode arr =
              (com.fasterxml.jackson.databind.node.ArrayNode) c;
          int drop = Math.max(1, arr.size() / 4);
          for (int i = 0; i < drop; i++) {
            arr.remove(arr.size() - 1);
          }
        } else {
          event.remove(container);
        }
        markTruncated(truncated, "event." + container);
      } else {
        truncateField(event, longest, body.length - Envelope.MAX_BYTES, truncated);
      }
      body = bytes(ce);
    }
    return body;
  }

  private static void truncateField(
      ObjectNode event,
      String field,
      int over,
      com.fasterxml.jackson.databind.node.ArrayNode truncated) {
    String text = event.get(field).asText();
    int keep = Math.max(0, text.length() - over - TRUNCATION_MARK.length() - 64);
    event.put(field, text.substring(0, keep) + TRUNCATION_MARK);
    markTruncated(truncated, "event." + field);
  }

  private static void markTruncated(
      com.fasterxml.jackson.databind.node.ArrayNode truncated, String path) {
    for (JsonNode n : truncated) {
      if (n.asText().equals(path)) {
        return;
      }
    }
    truncated.add(path);
  }

  private static String longestText(ObjectNode event) {
    String best = null;
    int bestLen = 256; // not worth cutting below this
    for (Iterator<Map.Entry<String, JsonNode>> it = event.fields(); it.hasNext(); ) {
      var f = it.next();
      if (f.getValue().isTextual()
          && f.getValue().asText().length() > bestLen
          && !f.getKey().equals("EventId")) {
        best = f.getKey();
        bestLen = f.getValue().asText().length();
      }
    }
    return best;
  }

  private static String largestContainer(ObjectNode event) {
    String best = null;
    int bestLen = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = event.fields(); it.hasNext(); ) {
      var f = it.next();
      if (f.getValue().isContainerNode()) {
        int len = bytes(f.getValue()).length;
        if (len > bestLen) {
          best = f.getKey();
          bestLen = len;
        }
      }
    }
    return best;
  }

  private static byte[] bytes(JsonNode n) {
    try {
      return EnvelopeFactory.JSON.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
