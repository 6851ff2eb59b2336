package dev.sebridge.fleet.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.fleet.model.FleetEnvelope;
import dev.sebridge.schemas.EnvelopeValidator;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Reads the envelopes topic: a record becomes a {@link FleetEnvelope} only if it is an sebridge
 * envelope valid against the v1 schemas ({@link EnvelopeValidator}). Anything else throws {@link
 * InvalidEnvelopeException}, which the deserialization handler counts by kind and skips ({@link
 * SkipAndCount}): a poison record never stops the fleet view.
 */
public final class EnvelopeSerde implements Serde<FleetEnvelope> {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A record that is not a valid envelope; {@link #kind()} says what it is instead. */
  public static final class InvalidEnvelopeException extends SerializationException {
    private static final long serialVersionUID = 1L;
    private final String kind;

    InvalidEnvelopeException(String kind, String message) {
      super(message);
      this.kind = kind;
    }

    /** {@code not-json}, {@code not-sebridge}, {@code invalid <type>}. */
    public String kind() {
      return kind;
    }
  }

  @Override
  public Serializer<FleetEnvelope> serializer() {
    return (topic, e) -> {
      throw new UnsupportedOperationException("the fleet service never writes envelopes");
    };
  }

  @Override
  public Deserializer<FleetEnvelope> deserializer() {
    return (topic, bytes) -> parse(bytes);
  }

  /** The longest vmId or EventId the fleet keeps. */
  public static final int MAX_KEY = 256;

  private static final java.util.Set<String> DOT_SEGMENTS = java.util.Set.of(".", "..");

  static FleetEnvelope parse(byte[] bytes) {
    if (bytes == null) {
      throw new InvalidEnvelopeException("empty", "a record without a value");
    }
    JsonNode node;
    try {
      node = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new InvalidEnvelopeException("not-json", "not JSON");
    }
    if (bytes.length > EnvelopeValidator.MAX_BYTES) {
      throw new InvalidEnvelopeException("oversized", "larger than 64 KiB");
    }
    String type = node == null ? null : node.path("type").asText(null);
    List<String> problems = EnvelopeValidator.validate(node);
    if (!problems.isEmpty()) {
      // Counted by type only for the types there are: a kind per made-up type name would grow the
      // counts (and the metric's series) with whatever an agent sends.
      boolean ours = dev.sebridge.schemas.SchemaKind.ofV1Type(type).isPresent();
      throw new InvalidEnvelopeException(
          ours ? "invalid " + type : "not-sebridge-v1", String.join("; ", problems));
    }
    FleetEnvelope e;
    try {
      e =
          new FleetEnvelope(
              node.get("id").asText(),
              type,
              node.get("partitionkey").asText(),
              Instant.parse(node.get("time").asText()),
              node.get("data"));
    } catch (RuntimeException ex) {
      throw new InvalidEnvelopeException("invalid " + type, ex.toString());
    }
    // A vmId and an EventId key the views, and a list's cursor is the last key it listed: a key
    // of this size always fits a cursor (docs/fleet-openapi.yaml). Azure's are GUIDs (36).
    if (e.vmId().length() > MAX_KEY || e.eventKey().length() > MAX_KEY) {
      throw new InvalidEnvelopeException(
          "invalid " + type, "a vmId or EventId longer than " + MAX_KEY + " characters");
    }
    // The page links to a VM and an event by its id as a path segment: "." or ".." there is
    // resolved by the browser to another page, whatever the encoding.
    if (DOT_SEGMENTS.contains(e.vmId()) || DOT_SEGMENTS.contains(e.eventKey())) {
      throw new InvalidEnvelopeException(
          "invalid " + type, "a vmId or EventId that is \".\" or \"..\"");
    }
    // A key is stored as its UTF-8 bytes, where every lone surrogate becomes '?': such ids would
    // share one view ("vm-\ud800", "vm-\udc00" and "vm-?") and break the keys' order.
    if (!wellFormed(e.vmId()) || !wellFormed(e.eventKey())) {
      throw new InvalidEnvelopeException(
          "invalid " + type, "a vmId or EventId with a lone surrogate (not UTF-16)");
    }
    return e;
  }

  /** Whether every surrogate in {@code s} is half of a pair (null: nothing to check). */
  static boolean wellFormed(String s) {
    if (s == null) {
      return true;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
