package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The request bodies the API accepts, exactly as {@code docs/fleet-openapi.yaml} publishes them
 * (packaged with the service): each route's {@code requestBody} schema, compiled once with
 * networknt's JSON Schema validator (draft 2020-12, the dialect of OpenAPI 3.1). A body that does
 * not match is a 400 naming the fields, before anything is audited or sent.
 */
public final class RequestContract {
  static final String DOCUMENT = "fleet-openapi.yaml";

  private final Map<String, JsonSchema> bodies;

  private RequestContract(Map<String, JsonSchema> bodies) {
    this.bodies = bodies;
  }

  /** The contract as the packaged OpenAPI document states it. */
  public static RequestContract published() {
    try (InputStream in = RequestContract.class.getResourceAsStream(DOCUMENT)) {
      if (in == null) {
        throw new IllegalStateException(DOCUMENT + " is not on the class path");
      }
      return of(new ObjectMapper(new YAMLFactory()).readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + DOCUMENT, e);
    }
  }

  /** The contract of an OpenAPI 3.1 document. */
  static RequestContract of(JsonNode document) {
    JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    JsonNode defs = rewriteRefs(document.at("/components/schemas").deepCopy());
    Map<String, JsonSchema> bodies = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> path = paths.next();
      Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields();
      while (ops.hasNext()) {
        Map.Entry<String, JsonNode> op = ops.next();
        JsonNode schema = op.getValue().at("/requestBody/content/application~1json/schema");
        if (schema.isMissingNode()) {
          continue;
        }
        ObjectNode standalone = new ObjectMapper().createObjectNode();
        standalone.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        standalone.set("$defs", defs);
        standalone.setAll((ObjectNode) rewriteRefs(schema.deepCopy()));
        bodies.put(key(op.getKey(), path.getKey()), factory.getSchema(standalone));
      }
    }
    return new RequestContract(bodies);
  }

  /**
   * Checks a request body against its route's schema.
   *
   * @param method the HTTP method
   * @param template the route as the document names it, e.g. {@code /api/events/{eventId}/approve}
   * @throws ApiException 400 naming what does not match
   */
  public void check(String method, String template, JsonNode body) {
    JsonSchema schema = bodies.get(key(method, template));
    if (schema == null) {
      throw new IllegalStateException(
          method + " " + template + " takes no body in " + DOCUMENT + ": document it first");
    }
    Set<ValidationMessage> problems = schema.validate(body);
    if (!problems.isEmpty()) {
      throw new ApiException(
          400,
          "the body does not match "
              + DOCUMENT
              + ": "
              + problems.stream()
                  .map(ValidationMessage::getMessage)
                  .sorted()
                  .collect(Collectors.joining("; ")));
    }
  }

  private static String key(String method, String template) {
    return method.toUpperCase(Locale.ROOT) + " " + template;
  }

  /** OpenAPI's {@code #/components/schemas/X} references as {@code #/$defs/X}, in place. */
  static JsonNode rewriteRefs(JsonNode n) {
    if (n.isObject()) {
      ObjectNode o = (ObjectNode) n;
      if (o.has("$ref")) {
        o.put("$ref", o.get("$ref").asText().replace("#/components/schemas/", "#/$defs/"));
      }
      o.fields().forEachRemaining(f -> rewriteRefs(f.getValue()));
    } else if (n.isArray()) {
      n.forEach(RequestContract::rewriteRefs);
    }
    return n;
  }
}
