package dev.sebridge.imds;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The IMDS client: {@code GET} and {@code POST /metadata/scheduledevents}, {@code GET
 * /metadata/instance/compute}.
 *
 * <p>Built with {@link HttpClient.Builder#NO_PROXY}: IMDS must never be reached through a proxy,
 * whatever {@code HTTP_PROXY} or {@code http.proxyHost} say. Every request carries {@code Metadata:
 * true} and never {@code X-Forwarded-For}; redirects are not followed, so only the configured base
 * URL is ever contacted. HTTP/1.1 only: IMDS does not speak HTTP/2 and an upgrade attempt is noise.
 *
 * <p>Answers are classified into {@link ImdsResult.Ok} (a 200 with a valid body) or {@link
 * ImdsResult.Failed}; a failure is never mistaken for "no events".
 */
public final class ImdsClient {
  /** Larger answers are not IMDS: refuse rather than buffer them. */
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String base;
  private final String apiVersion;
  private final String computeApiVersion;

  public ImdsClient(URI endpoint, String apiVersion, String computeApiVersion) {
    this.http =
        HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .followRedirects(HttpClient.Redirect.NEVER)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            // One request at a time: one daemon thread, not a cached pool handing work around.
            .executor(
                java.util.concurrent.Executors.newSingleThreadExecutor(
                    r -> {
                      Thread t = new Thread(r, "sebridge-imds-http");
                      t.setDaemon(true);
                      return t;
                    }))
            .build();
    String b = endpoint.toString();
    this.base = b.endsWith("/") ? b.substring(0, b.length() - 1) : b;
    this.apiVersion = Objects.requireNonNull(apiVersion);
    this.computeApiVersion = Objects.requireNonNull(computeApiVersion);
  }

  public URI scheduledEventsUri() {
    return URI.create(base + "/metadata/scheduledevents?api-version=" + apiVersion);
  }

  /** Reads the scheduled events document. */
  public ImdsResult<ScheduledEventsDocument> scheduledEvents(Duration timeout) {
    HttpRequest req = request(scheduledEventsUri(), timeout).GET().build();
    return send(
        req,
        body -> {
          try {
            return DocumentParser.parse(body);
          } catch (MalformedDocumentException e) {
            throw new BodyException(e.getMessage());
          }
        });
  }

  /** Reads this VM's identity. */
  public ImdsResult<VmIdentity> identity(Duration timeout) {
    URI uri = URI.create(base + "/metadata/instance/compute?api-version=" + computeApiVersion);
    return send(
        request(uri, timeout).GET().build(),
        body -> {
          try {
            return VmIdentity.fromCompute(JSON.readTree(body));
          } catch (JacksonException e) {
            throw new BodyException("compute metadata is not JSON: " + e.getOriginalMessage());
          } catch (IOException | MalformedDocumentException e) {
            throw new BodyException(e.getMessage());
          }
        });
  }

  /**
   * Approves events: one {@code POST} with a StartRequest per EventId. The value of a success is
   * the HTTP status (200).
   */
  public ImdsResult<Integer> startEvents(List<String> eventIds, Duration timeout) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode reqs = body.putArray("StartRequests");
    eventIds.forEach(id -> reqs.addObject().put("EventId", id));
    HttpRequest req =
        request(scheduledEventsUri(), timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    return send(req, b -> 200);
  }

  private static HttpRequest.Builder request(URI uri, Duration timeout) {
    return HttpRequest.newBuilder(uri).timeout(timeout).header("Metadata", "true");
  }

  private <T> ImdsResult<T> send(HttpRequest req, BodyReader<T> reader) {
    long start = System.nanoTime();
    HttpResponse<InputStream> resp;
    try {
      resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException e) {
      return failed(ImdsFailure.Kind.CONNECTION, 0, "connect timeout", start);
    } catch (HttpTimeoutException e) {
      return failed(
          ImdsFailure.Kind.TIMEOUT, 0, "no answer within " + req.timeout().orElseThrow(), start);
    } catch (ConnectException e) {
      return failed(ImdsFailure.Kind.CONNECTION, 0, "connection refused or unreachable", start);
    } catch (IOException e) {
      return failed(ImdsFailure.Kind.CONNECTION, 0, describe(e), start);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return failed(ImdsFailure.Kind.CONNECTION, 0, "interrupted", start);
    }
    int status = resp.statusCode();
    byte[] body;
    try (InputStream in = resp.body()) {
      body = in.readNBytes(MAX_BODY_BYTES + 1);
    } catch (IOException e) {
      return failed(ImdsFailure.Kind.CONNECTION, status, "answer cut short: " + describe(e), start);
    }
    if (status != 200) {
      return failed(kindOf(status), status, snippet(body), start);
    }
    if (body.length > MAX_BODY_BYTES) {
      return failed(ImdsFailure.Kind.MALFORMED, status, "answer larger than 4 MiB", start);
    }
    try {
      return new ImdsResult.Ok<>(reader.read(body), Duration.ofNanos(System.nanoTime() - start));
    } catch (BodyException e) {
      return failed(ImdsFailure.Kind.MALFORMED, status, e.getMessage(), start);
    }
  }

  static ImdsFailure.Kind kindOf(int status) {
    if (status == 400) {
      return ImdsFailure.Kind.BAD_REQUEST;
    } else if (status == 404) {
      return ImdsFailure.Kind.NOT_FOUND;
    } else if (status == 410) {
      return ImdsFailure.Kind.GONE;
    } else if (status == 429) {
      return ImdsFailure.Kind.THROTTLED;
    } else if (status >= 500 && status <= 599) {
      return ImdsFailure.Kind.SERVER_ERROR;
    }
    return ImdsFailure.Kind.UNEXPECTED_STATUS;
  }

  private static <T> ImdsResult<T> failed(
      ImdsFailure.Kind kind, int status, String detail, long start) {
    return new ImdsResult.Failed<>(
        new ImdsFailure(kind, status, detail, Duration.ofNanos(System.nanoTime() - start)));
  }

  private static String describe(IOException e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  private static String snippet(byte[] body) {
    String s =
        new String(body, 0, Math.min(body.length, 200), java.nio.charset.StandardCharsets.UTF_8);
    return s.isBlank() ? "(empty body)" : s.replaceAll("\\s+", " ");
  }

  @FunctionalInterface
  private interface BodyReader<T> {
    T read(byte[] body) throws BodyException;
  }

  private static final class BodyException extends Exception {
    private static final long serialVersionUID = 1L;

    BodyException(String message) {
      super(message);
    }
  }
}
