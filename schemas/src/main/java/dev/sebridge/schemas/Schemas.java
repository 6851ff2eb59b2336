package dev.sebridge.schemas;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The released schemas, by kind and version. Within v1, versions only add optional fields (see
 * {@link CompatibilityRules}); every released version stays here forever.
 */
public final class Schemas {
  /** Released versions of each kind, oldest first. Add a version, never remove or edit one. */
  public static final Map<SchemaKind, List<String>> RELEASED = released();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonSchemaFactory FACTORY =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);

  private Schemas() {}

  private static Map<SchemaKind, List<String>> released() {
    Map<SchemaKind, List<String>> m = new EnumMap<>(SchemaKind.class);
    m.put(SchemaKind.ENVELOPE, List.of("1.0"));
    m.put(SchemaKind.RESULT, List.of("1.0", "1.1"));
    m.put(SchemaKind.HEARTBEAT, List.of("1.0", "1.1", "1.2"));
    m.put(SchemaKind.COMMAND, List.of("1.0", "1.1"));
    return m;
  }

  /** The newest released version of a kind. */
  public static String latest(SchemaKind kind) {
    List<String> v = RELEASED.get(kind);
    return v.get(v.size() - 1);
  }

  /** The schema text of the newest version, as shipped. */
  public static String text(SchemaKind kind) {
    return text(kind, latest(kind));
  }

  public static String text(SchemaKind kind, String version) {
    try (InputStream in = Schemas.class.getResourceAsStream(kind.resource(version))) {
      if (in == null) {
        throw new IllegalArgumentException("no schema " + kind + " " + version);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JsonNode tree(SchemaKind kind, String version) {
    try {
      return JSON.readTree(text(kind, version));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compiled once per kind and version: compiling is far costlier than validating. */
  private static final Map<String, JsonSchema> COMPILED =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Validates a document against one schema version; returns the problems (empty when valid). */
  public static List<String> validate(SchemaKind kind, String version, JsonNode document) {
    JsonSchema schema =
        COMPILED.computeIfAbsent(kind + "@" + version, k -> FACTORY.getSchema(tree(kind, version)));
    Set<ValidationMessage> messages = schema.validate(document);
    List<String> out = new ArrayList<>();
    messages.forEach(m -> out.add(m.getMessage()));
    return out;
  }

  /** Validates against a sub-schema, e.g. {@code #/$defs/claims} of the command schema. */
  public static List<String> validateDefinition(
      SchemaKind kind, String version, String definition, JsonNode document) {
    JsonNode root = tree(kind, version);
    JsonNode def = root.path("$defs").path(definition);
    if (def.isMissingNode()) {
      throw new IllegalArgumentException("no definition " + definition + " in " + kind);
    }
    com.fasterxml.jackson.databind.node.ObjectNode standalone = def.deepCopy();
    standalone.put("$schema", root.get("$schema").asText());
    standalone.set("$defs", root.get("$defs"));
    List<String> out = new ArrayList<>();
    FACTORY.getSchema(standalone).validate(document).forEach(m -> out.add(m.getMessage()));
    return out;
  }
}
