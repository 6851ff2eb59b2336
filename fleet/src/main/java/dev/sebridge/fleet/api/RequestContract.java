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
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The request bodies the API accepts, exactly as {@code docs/fleet-openapi.yaml} publishes them
 * (packaged with the service): each route's {@code requestBody} schema, compiled once with
 * networknt's JSON Schema validator (draft 2020-12, the dialect of OpenAPI 3.1). A body that does
 * not match is a 400 naming the fields, before anything is audited or sent. So are each route's
 * query parameters: an object of the {@code in: query} parameters' schemas, no others allowed (a
 * filter misspelt would list everything), each value read as its schema's type says.
 */
public final class RequestContract {
  static final String DOCUMENT = "fleet-openapi.yaml";

  private final Map<String, JsonSchema> bodies;
  private final Map<String, Query> queries;
  private final Map<java.util.regex.Pattern, Set<String>> methods;

  /** A route's query parameters: their schema, and each one's JSON type. */
  private record Query(JsonSchema schema, Map<String, String> types) {}

  private RequestContract(
      Map<String, JsonSchema> bodies,
      Map<String, Query> queries,
      Map<java.util.regex.Pattern, Set<String>> methods) {
    this.bodies = bodies;
    this.queries = queries;
    this.methods = methods;
  }

  /**
   * The methods the contract states for a path ({@code /api/events/E1} matches {@code
   * /api/events/{eventId}}), upper case; empty when no path of the contract matches it.
   */
  public Optional<Set<String>> methods(String path) {
    for (Map.Entry<java.util.regex.Pattern, Set<String>> e : methods.entrySet()) {
      if (e.getKey().matcher(path).matches()) {
        return Optional.of(e.getValue());
      }
    }
    return Optional.empty();
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
    Map<String, Query> queries = new TreeMap<>();
    // Paths without a template first: OpenAPI matches /a/b before /a/{x}.
    Map<java.util.regex.Pattern, Set<String>> literal = new java.util.LinkedHashMap<>();
    Map<java.util.regex.Pattern, Set<String>> templated = new java.util.LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> path = paths.next();
      Set<String> allowed = new java.util.TreeSet<>();
      (path.getKey().contains("{") ? templated : literal).put(template(path.getKey()), allowed);
      // A path item's own parameters apply to each of its operations (an operation's own, of
      // the same name and place, wins); its other fields (summary, servers, ...) are no methods.
      JsonNode shared = path.getValue().path("parameters");
      Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields();
      while (ops.hasNext()) {
        Map.Entry<String, JsonNode> op = ops.next();
        if (!OPERATIONS.contains(op.getKey())) {
          continue;
        }
        allowed.add(op.getKey().toUpperCase(java.util.Locale.ROOT));
        queries.put(
            key(op.getKey(), path.getKey()), query(document, defs, shared, op.getValue(), factory));
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
    Map<java.util.regex.Pattern, Set<String>> methods = new java.util.LinkedHashMap<>(literal);
    methods.putAll(templated);
    methods.replaceAll((p, m) -> Set.copyOf(m));
    return new RequestContract(bodies, queries, methods);
  }

  /** A path template as a pattern: each {@code {param}} one segment. */
  private static java.util.regex.Pattern template(String path) {
    StringBuilder b = new StringBuilder();
    for (String part : path.split("(?=\\{)|(?<=\\})")) {
      b.append(
          part.startsWith("{") && part.endsWith("}")
              ? "[^/]+"
              : java.util.regex.Pattern.quote(part));
    }
    return java.util.regex.Pattern.compile(b.toString());
  }

  /** The fields of an OpenAPI path item that are operations. */
  private static final Set<String> OPERATIONS =
      Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

  private static Query query(
      JsonNode document, JsonNode defs, JsonNode shared, JsonNode op, JsonSchemaFactory factory) {
    ObjectNode schema = new ObjectMapper().createObjectNode();
    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    schema.set("$defs", defs);
    schema.put("type", "object");
    schema.put("additionalProperties", false);
    ObjectNode properties = schema.putObject("properties");
    Map<String, String> types = new TreeMap<>();
    java.util.List<JsonNode> params = new java.util.ArrayList<>();
    shared.forEach(params::add); // the path item's first: an operation's own replace them
    op.path("parameters").forEach(params::add);
    for (JsonNode p : params) {
      JsonNode param = p.has("$ref") ? document.at(p.get("$ref").asText().substring(1)) : p;
      if (param.path("in").asText().equals("query")) {
        properties.set(param.path("name").asText(), rewriteRefs(param.path("schema").deepCopy()));
        types.put(param.path("name").asText(), param.path("schema").path("type").asText("string"));
      }
    }
    return new Query(factory.getSchema(schema), types);
  }

  /**
   * Checks a request's query parameters against its route's.
   *
   * @param query each parameter's value as sent (decoded)
   * @throws ApiException 400 naming what does not match
   */
  public void checkQuery(String method, String template, Map<String, String> query) {
    Query q = queries.get(key(method, template));
    if (q == null) {
      throw new IllegalStateException(method + " " + template + " is not in " + DOCUMENT);
    }
    ObjectNode values = new ObjectMapper().createObjectNode();
    query.forEach(
        (name, value) -> {
          String type = q.types().getOrDefault(name, "string");
          if (type.equals("boolean") && (value.equals("true") || value.equals("false"))) {
            values.put(name, Boolean.parseBoolean(value));
          } else if (type.equals("integer") && value.matches("-?[0-9]{1,18}")) {
            values.put(name, Long.parseLong(value));
          } else {
            values.put(name, value);
          }
        });
    refuseUnless("the query", q.schema().validate(values));
  }

  /** 400 naming every problem, when there is one. */
  private static void refuseUnless(String what, Set<ValidationMessage> problems) {
    if (!problems.isEmpty()) {
      throw new ApiException(
          400,
          what
              + " does not match "
              + DOCUMENT
              + ": "
              + problems.stream()
                  .map(ValidationMessage::getMessage)
                  .sorted()
                  .collect(Collectors.joining("; ")));
    }
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
    refuseUnless("the body", schema.validate(body));
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
