package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A client of the fleet service's API, as the CLI uses it: JSON in, JSON out, bearer token. */
final class FleetClient {
  static final ObjectMapper JSON = new ObjectMapper();

  /** An answer other than 2xx: the status and the service's error message. */
  static final class ApiError extends IOException {
    private static final long serialVersionUID = 1L;
    final int status;

    ApiError(int status, String message) {
      super(message);
      this.status = status;
    }
  }

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

  JsonNode post(String path, JsonNode body, String idempotencyKey)
      throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", idempotencyKey)
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build());
  }

  static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path))
        .timeout(Duration.ofSeconds(30))
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
          resp.statusCode(), "the service answered " + resp.statusCode() + " without JSON");
    }
    if (resp.statusCode() / 100 != 2) {
      throw new ApiError(
          resp.statusCode(),
          resp.statusCode() + ": " + body.path("error").asText("the service refused the request"));
    }
    return body;
  }
}
