package dev.sebridge.imds;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The IMDS client: {@code GET} and {@code POST /metadata/scheduledevents}, {@code GET
 * /metadata/instance/compute}.
 *
 * <p>Every connection is opened with {@link Proxy#NO_PROXY}: IMDS must never be reached through a
 * proxy, whatever {@code HTTP_PROXY} or {@code http.proxyHost} say. Every request carries {@code
 * Metadata: true} and never {@code X-Forwarded-For}; redirects are not followed, so only the
 * configured base URL is ever contacted. HTTP/1.1 with keep-alive.
 *
 * <p>The JDK's {@code HttpURLConnection}, not {@code java.net.http.HttpClient}: one blocking
 * request a second on the caller's thread needs no selector thread, executor hand-offs or futures,
 * and costs about half the CPU (benchmarks/REPORT.md).
 *
 * <p>Answers are classified into {@link ImdsResult.Ok} (a 200 with a valid body) or {@link
 * ImdsResult.Failed}; a failure is never mistaken for "no events".
 */
public final class ImdsClient {
  /** Larger answers are not IMDS: refuse rather than buffer them. */
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String base;
  private final String apiVersion;
  private final String computeApiVersion;

  public ImdsClient(URI endpoint, String apiVersion, String computeApiVersion) {
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
    return send(
        scheduledEventsUri(),
        timeout,
        null,
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
        uri,
        timeout,
        null,
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
    return send(
        scheduledEventsUri(), timeout, body.toString().getBytes(StandardCharsets.UTF_8), b -> 200);
  }

  /** A GET, or a POST of {@code post}; {@code timeout} bounds the wait for the answer. */
  private <T> ImdsResult<T> send(URI uri, Duration timeout, byte[] post, BodyReader<T> reader) {
    long start = System.nanoTime();
    HttpURLConnection c;
    try {
      c = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
    } catch (IOException | IllegalArgumentException e) {
      return failed(ImdsFailure.Kind.CONNECTION, 0, "bad URL " + uri + ": " + e, start);
    }
    c.setInstanceFollowRedirects(false);
    c.setUseCaches(false);
    c.setConnectTimeout((int) Math.min(CONNECT_TIMEOUT.toMillis(), timeout.toMillis()));
    c.setReadTimeout((int) Math.max(1, timeout.toMillis()));
    c.setRequestProperty("Metadata", "true");
    c.setRequestProperty("Accept", "application/json");
    try {
      if (post != null) {
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        c.setFixedLengthStreamingMode(post.length);
      }
      try {
        c.connect();
      } catch (SocketTimeoutException e) {
        return failed(ImdsFailure.Kind.CONNECTION, 0, "connect timeout", start);
      } catch (ConnectException e) {
        return failed(ImdsFailure.Kind.CONNECTION, 0, "connection refused or unreachable", start);
      }
      if (post != null) {
        try (OutputStream out = c.getOutputStream()) {
          out.write(post);
        }
      }
      int status;
      try {
        status = c.getResponseCode();
      } catch (SocketTimeoutException e) {
        c.disconnect();
        return failed(ImdsFailure.Kind.TIMEOUT, 0, "no answer within " + timeout, start);
      }
      if (status < 0) {
        c.disconnect();
        return failed(ImdsFailure.Kind.MALFORMED, 0, "not an HTTP answer", start);
      }
      byte[] body;
      // Read to the end and close: the connection goes back to the keep-alive cache.
      try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
        body = in == null ? new byte[0] : in.readNBytes(MAX_BODY_BYTES + 1);
      } catch (IOException e) {
        c.disconnect();
        return failed(
            ImdsFailure.Kind.CONNECTION, status, "answer cut short: " + describe(e), start);
      }
      if (status != 200) {
        return failed(kindOf(status), status, snippet(body), start);
      }
      if (body.length > MAX_BODY_BYTES) {
        c.disconnect();
        return failed(ImdsFailure.Kind.MALFORMED, status, "answer larger than 4 MiB", start);
      }
      try {
        return new ImdsResult.Ok<>(reader.read(body), Duration.ofNanos(System.nanoTime() - start));
      } catch (BodyException e) {
        return failed(ImdsFailure.Kind.MALFORMED, status, e.getMessage(), start);
      }
    } catch (IOException e) {
      c.disconnect();
      return failed(ImdsFailure.Kind.CONNECTION, 0, describe(e), start);
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
