package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * What a route reads of a request: its body and query parameters checked against
 * docs/fleet-openapi.yaml ({@link RequestContract}), path segments decoded; and the 404 of a lookup
 * that found nothing.
 */
public final class ApiInput {
  /**
   * What no route of the API takes: 405 with the methods the contract states for the path in {@code
   * Allow} (HEAD wherever GET is), or 404 for a path the contract does not have.
   */
  public static ApiException noRoute(HttpCall call, String path) {
    Optional<java.util.Set<String>> methods = CONTRACT.methods(path);
    if (methods.isEmpty()) {
      return new ApiException(404, "no such route: " + path);
    }
    java.util.Set<String> allow = new java.util.TreeSet<>(methods.get());
    if (allow.contains("GET")) {
      allow.add("HEAD");
    }
    call.header("Allow", String.join(", ", allow));
    return new ApiException(405, "no such route: " + call.rawMethod() + " " + path);
  }

  /** Whether the contract gives this path this method (a path it does not have: false). */
  public static boolean takes(String path, String method) {
    return CONTRACT.methods(path).map(m -> m.contains(method)).orElse(false);
  }

  private static final RequestContract CONTRACT = RequestContract.published();

  private ApiInput() {}

  public static <T> T found(Optional<T> o, String what) {
    return o.orElseThrow(() -> new ApiException(404, "no such " + what));
  }

  /**
   * The request's JSON body, checked against what docs/fleet-openapi.yaml says the route accepts
   * ({@link RequestContract}): 400 naming the fields when it does not match.
   *
   * @param template the route as the document names it, e.g. {@code /api/events/{eventId}/approve}
   */
  public static JsonNode body(HttpCall call, String template) {
    mediaType(call);
    JsonNode n;
    try {
      // One JSON value and nothing after it: {"reason":"r"} {"vms":[]} is not a body, it is two.
      n =
          JsonSerde.JSON
              .reader()
              .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
              .readTree(call.body());
    } catch (IOException e) {
      throw new ApiException(400, "the body is not one JSON value");
    }
    if (n == null || !n.isObject()) {
      throw new ApiException(400, "the body must be a JSON object");
    }
    CONTRACT.check(call.rawMethod(), template, n);
    return n;
  }

  /**
   * A body the page builds from its form, checked against what docs/fleet-openapi.yaml says the
   * API's route accepts ({@link RequestContract}): the page does nothing the API would refuse.
   */
  public static void checkBody(String method, String template, JsonNode body) {
    CONTRACT.check(method, template, body);
  }

  /**
   * The body's media type: {@code application/json} (UTF-8, the only charset JSON has), as the
   * document publishes every body; 415 for any other, before the body is parsed. A body without a
   * Content-Type is read as JSON (Java's HttpClient and many scripts send none); one sent as a form
   * ({@code curl -d} without {@code -H}) is refused, not guessed at.
   */
  private static void mediaType(HttpCall call) {
    String type = call.header("Content-Type");
    if (type == null) {
      return;
    }
    String charset = org.eclipse.jetty.http.MimeTypes.getCharsetFromContentType(type);
    if (!"application/json".equalsIgnoreCase(org.eclipse.jetty.http.MimeTypes.getBase(type).trim())
        || (charset != null && !charset.equals("utf-8"))) {
      throw new ApiException(
          415, "the body must be sent as Content-Type: application/json (UTF-8), not " + type);
    }
  }

  /**
   * The request's query parameters, checked against what docs/fleet-openapi.yaml says the route
   * takes ({@link RequestContract}): 400 for one it does not take, of the wrong type, or given
   * twice.
   *
   * @param template the route as the document names it, e.g. {@code /api/events}
   */
  public static Map<String, String> query(HttpCall call, String template) {
    Map<String, String> q = fields(call.rawQuery());
    CONTRACT.checkQuery(call.method(), template, q);
    return q;
  }

  /**
   * A raw query's fields, decoded, in order (null or empty: none); 400 for a field given twice or
   * malformed percent-encoding. What a route takes is the route's to check.
   */
  public static Map<String, String> fields(String raw) {
    Map<String, String> q = new java.util.LinkedHashMap<>();
    if (raw != null && !raw.isEmpty()) {
      for (String part : raw.split("&", -1)) {
        int eq = part.indexOf('=');
        String name = decode(eq < 0 ? part : part.substring(0, eq));
        if (q.put(name, eq < 0 ? "" : decode(part.substring(eq + 1))) != null) {
          throw new ApiException(400, "the query gives " + name + " more than once");
        }
      }
    }
    return q;
  }

  /** A form field (application/x-www-form-urlencoded: '+' is a space); 400 when malformed. */
  public static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new ApiException(400, "malformed percent-encoding: " + e.getMessage());
    }
  }

  /** A path segment as sent (percent-encoded), decoded once ('+' is a plus); 400 when malformed. */
  public static String segment(String raw) {
    return decode(raw.replace("+", "%2B"));
  }
}
