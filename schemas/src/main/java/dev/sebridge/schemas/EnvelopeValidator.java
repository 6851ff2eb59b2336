package dev.sebridge.schemas;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Everything a consumer may rely on about one published document: it is JSON, at most 64 KiB, valid
 * against the schema of its {@code type}, and (for envelopes) its {@code dataschema} and {@code
 * data.schemaVersion} name the same version.
 */
public final class EnvelopeValidator {
  /** Log Analytics and CloudEvents forwarders refuse larger events. */
  public static final int MAX_BYTES = 64 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  private EnvelopeValidator() {}

  /** The problems of a serialized document (empty when it is valid). */
  public static List<String> validate(byte[] body) {
    List<String> problems = new ArrayList<>();
    if (body.length > MAX_BYTES) {
      problems.add("larger than 64 KiB: " + body.length + " bytes");
    }
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (JacksonException e) {
      problems.add("not JSON: " + e.getOriginalMessage());
      return problems;
    } catch (IOException e) {
      problems.add("unreadable: " + e.getMessage());
      return problems;
    }
    problems.addAll(validate(node));
    return problems;
  }

  /** The problems of a parsed document, size aside. */
  public static List<String> validate(JsonNode node) {
    List<String> problems = new ArrayList<>();
    if (node == null || !node.isObject()) {
      problems.add("not a JSON object");
      return problems;
    }
    Optional<SchemaKind> kind = SchemaKind.ofType(node.path("type").asText(null));
    if (kind.isEmpty()) {
      problems.add("type " + node.path("type") + " is not an sebridge type");
      return problems;
    }
    problems.addAll(Schemas.validate(kind.get(), Schemas.latest(kind.get()), node));
    if (kind.get() != SchemaKind.COMMAND) {
      String dataschema = node.path("dataschema").asText("");
      String version = node.path("data").path("schemaVersion").asText("");
      if (!dataschema.equals(kind.get().urn(version))) {
        problems.add(
            "dataschema " + dataschema + " and data.schemaVersion " + version + " disagree");
      }
    }
    return problems;
  }
}
