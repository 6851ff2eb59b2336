package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** A client of the fleet service's API, as the CLI uses it: JSON in, JSON out, bearer token. */
final class FleetClient {
  static final ObjectMapper JSON = new ObjectMapper();

  /** An answer other than 2xx: the status, the service's error message and its whole answer. */
  static final class ApiError extends IOException {
    private static final long serialVersionUID = 1L;
    final int status;
    final transient JsonNode body;
    // How long the service asked to wait before trying again (Retry-After in seconds), if it did.
    final transient Optional<Duration> retryAfter;

    ApiError(int status, String message, JsonNode body, Optional<Duration> retryAfter) {
      super(message);
      this.status = status;
      this.body = body;
      this.retryAfter = retryAfter;
    }

    /** 502, 503, 504: the service (or what is in front of it) could not finish; try again. */
    boolean transientFailure() {
      return status == 502 || status == 503 || status == 504;
    }
  }

  /**
   * How often a write is tried, and how long between tries: the same Idempotency-Key every time, so
   * the service makes one request however many tries reach it.
   */
  static final RetryConfig WRITES =
      RetryConfig.custom()
          .maxAttempts(3)
          .intervalFunction(IntervalFunction.ofExponentialBackoff(Duration.ofSeconds(1), 2.0))
          .retryOnException(
              e ->
                  e instanceof ApiError a
                      ? a.transientFailure()
                      : e instanceof IOException) // timed out, refused, reset
          .build();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final URI base;
  private final String token;

  FleetClient(URI base, String token) {
    this.base = base;
    this.token = token;
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return send(request(path).GET().build());
  }

  /** Pages a list takes at most: 1,000 pages of 1,000 are a million items. */
  static final int MOST_PAGES = 1_000;

  /**
   * Every page of a list ({@code path} may have a query), following each page's {@code next}: the
   * first page's answer with the items of all of them under {@code items}, and no {@code next}.
   */
  JsonNode getAll(String path, String items) throws IOException, InterruptedException {
    return getAll(path, items, 1000);
  }

  /** The same, {@code pageSize} items a page (the most its list's contract allows). */
  JsonNode getAll(String path, String items, int pageSize)
      throws IOException, InterruptedException {
    String sep = path.contains("?") ? "&" : "?";
    ObjectNode first = (ObjectNode) get(path + sep + "limit=" + pageSize);
    ArrayNode all = first.get(items) instanceof ArrayNode found ? found : first.putArray(items);
    JsonNode page = first;
    for (int n = 1; page.hasNonNull("next"); n++) {
      if (n >= MOST_PAGES) {
        throw new IOException("more than " + MOST_PAGES + " pages of " + path);
      }
      page =
          get(path + sep + "limit=" + pageSize + "&cursor=" + segment(page.get("next").asText()));
      page.path(items).forEach(all::add);
    }
    first.remove("next");
    return first;
  }

  /**
   * Posts with this Idempotency-Key, tried again ({@link #WRITES}) on a 502/503/504 or a failed
   * connection with the same key: a write that timed out and took effect is then answered with the
   * request it made, never made twice.
   */
  JsonNode post(String path, JsonNode body, String idempotencyKey)
      throws IOException, InterruptedException {
    return post(path, body, idempotencyKey, WRITES);
  }

  JsonNode post(String path, JsonNode body, String idempotencyKey, RetryConfig retries)
      throws IOException, InterruptedException {
    CheckedSupplier<JsonNode> once = () -> postOnce(path, body, idempotencyKey);
    try {
      return Retry.decorateCheckedSupplier(Retry.of("fleet-write", retries), once).get();
    } catch (IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Throwable e) {
      throw new IOException(e);
    }
  }

  private JsonNode postOnce(String path, JsonNode body, String idempotencyKey)
      throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", idempotencyKey)
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build());
  }

  /**
   * What a CLI write prints when it failed: the service's reason and, when the service could not
   * tell whether the write took effect ({@code "state": "unknown"}, or any 502/503/504 after the
   * last try), what it was and how to retry the same request.
   */
  static String failure(String command, IOException e, String idempotencyKey) {
    String hint =
        " (state unknown): run the same command with --idempotency-key "
            + idempotencyKey
            + " to retry it without making a second one";
    if (!(e instanceof ApiError a)) {
      // Timed out or cut off after the last try: the service may have written it.
      return command + ": " + e + "\n" + command + ": the request may still take effect" + hint;
    }
    String message = command + ": " + e.getMessage();
    if (a.body.path("state").asText().equals("unknown")) {
      String id = a.body.path("requestId").asText(a.body.path("rolloutId").asText("?"));
      message += "\n" + command + ": " + id + " may still take effect" + hint;
    } else if (a.transientFailure()) {
      // Even the service's own busy 503 is no proof: an earlier try may have reached it (and a
      // proxy's 503 looks the same). The key makes the retry safe whatever happened.
      message += "\n" + command + ": the request may still take effect" + hint;
    }
    return message;
  }

  /** Adds {@code name=value} to a query, encoded, when a value is given. */
  static void query(java.util.StringJoiner q, String name, String value) {
    if (value != null) {
      q.add(name + "=" + segment(value));
    }
  }

  static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path))
        // Longer than the service takes to give up on the broker (10 s to send, 30 s to confirm):
        // a write it could not confirm is answered 503 "state unknown", not cut off here.
        .timeout(Duration.ofSeconds(60))
        .header("Accept", "application/json")
        .header("Authorization", "Bearer " + token);
  }

  private JsonNode send(HttpRequest r) throws IOException, InterruptedException {
    HttpResponse<byte[]> resp = http.send(r, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode body;
    try {
      body = resp.body().length == 0 ? JSON.createObjectNode() : JSON.readTree(resp.body());
    } catch (IOException e) {
      throw new ApiError(
          resp.statusCode(),
          "the service answered " + resp.statusCode() + " without JSON",
          JSON.createObjectNode(),
          retryAfter(resp));
    }
    if (resp.statusCode() / 100 != 2) {
      throw new ApiError(
          resp.statusCode(),
          resp.statusCode() + ": " + body.path("error").asText("the service refused the request"),
          body,
          retryAfter(resp));
    }
    return body;
  }

  /** The answer's Retry-After in seconds; none for a date or anything else (RFC 9110 10.2.3). */
  static Optional<Duration> retryAfter(HttpResponse<?> resp) {
    return resp.headers()
        .firstValue("Retry-After")
        .map(String::strip)
        .filter(v -> v.matches("[0-9]{1,6}"))
        .map(v -> Duration.ofSeconds(Long.parseLong(v)));
  }
}
