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
    // Every id an envelope brings that keys a view (StoreKeys): its vmId, the EventId it reports,
    // and a result's EventIds. (A result's commandId only finds the fleet's own request: an
    // unknown one is dropped, and a long one, the fleet's request id with a long vmId, is valid.)
    JsonNode data = node.path("data");
    List<String> ids = new java.util.ArrayList<>(java.util.Arrays.asList(e.vmId(), e.eventKey()));
    data.path("eventIds").forEach(id -> ids.add(id.asText("")));
    for (String id : ids) {
      String problem = dev.sebridge.fleet.model.StoreKeys.problem(id);
      if (problem != null) {
        throw new InvalidEnvelopeException("invalid " + type, problem);
      }
    }
    return e;
  }
}
