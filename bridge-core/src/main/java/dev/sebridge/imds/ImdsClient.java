package dev.sebridge.imds;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
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
 * <p>Every request uses the JDK's {@code HttpURLConnection}: one blocking request on the caller's
 * thread needs no selector thread, executor hand-offs or futures, costs about half the CPU of
 * {@code java.net.http.HttpClient} for the reads every second, and loads no TLS or {@code
 * java.net.http} classes (about 500) for the rare {@code POST}, so the first approval after start
 * is not slower than the others (benchmarks/REPORT.md). A {@code POST} is buffered and leaves in
 * one write. The JDK would retry a {@code POST} whose answer it did not read on its own; the
 * launcher and {@code Main} turn that off ({@value #NO_POST_RETRY}=false): retries are {@code
 * ImdsRetry}'s, visible and bounded.
 *
 * <p>Answers are classified into {@link ImdsResult.Ok} (a 200 with a valid body) or {@link
 * ImdsResult.Failed}; a failure is never mistaken for "no events".
 */
public final class ImdsClient implements Imds {
  /** Larger answers are not IMDS: refuse rather than buffer them. */
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** The JDK's switch for its own retry of a {@code POST}; set to false before any request. */
  public static final String NO_POST_RETRY = "sun.net.http.retryPost";

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

  /**
   * The client {@code imds.endpoint}, {@code imds.api-version} and {@code imds.compute-api-version}
   * describe.
   */
  public static ImdsClient from(dev.sebridge.config.Configuration config) {
    return new ImdsClient(
        config.get(dev.sebridge.config.CoreKeys.IMDS_ENDPOINT),
        config.get(dev.sebridge.config.CoreKeys.IMDS_API_VERSION),
        config.get(dev.sebridge.config.CoreKeys.IMDS_COMPUTE_API_VERSION));
  }

  @Override
  public URI scheduledEventsUri() {
    return URI.create(base + "/metadata/scheduledevents?api-version=" + apiVersion);
  }

  @Override
  public ImdsResult<ScheduledEventsDocument> scheduledEvents(Duration timeout) {
    return get(
        scheduledEventsUri(),
        timeout,
        body -> {
          try {
            return DocumentParser.parse(body);
          } catch (MalformedDocumentException e) {
            throw new BodyException(e.getMessage());
          }
        });
  }

  @Override
  public ImdsResult<VmIdentity> identity(Duration timeout) {
    URI uri = URI.create(base + "/metadata/instance/compute?api-version=" + computeApiVersion);
    return get(
        uri,
        timeout,
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

  @Override
  public ImdsResult<Integer> startEvents(List<String> eventIds, Duration timeout) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode reqs = body.putArray("StartRequests");
    eventIds.forEach(id -> reqs.addObject().put("EventId", id));
    byte[] json;
    try {
      json = JSON.writeValueAsBytes(body);
    } catch (JacksonException e) {
      throw new IllegalStateException(e);
    }
    return exchange(scheduledEventsUri(), json, timeout, answer -> 200);
  }

  /** A GET; {@code timeout} bounds the wait for the answer. */
  private <T> ImdsResult<T> get(URI uri, Duration timeout, BodyReader<T> reader) {
    return exchange(uri, null, timeout, reader);
  }

  /**
   * One request: a GET, or a POST of {@code postBody} (JSON). A POST is buffered, so the request
   * line, headers and body leave in one write: no second small segment for Nagle's algorithm to
   * hold until the peer's delayed ACK.
   */
  private <T> ImdsResult<T> exchange(
      URI uri, byte[] postBody, Duration timeout, BodyReader<T> reader) {
    long start = System.nanoTime();
    HttpURLConnection c;
    try {
      c = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
    } catch (IOException | IllegalArgumentException e) {
      return failed(ImdsFailure.Kind.CONNECTION, 0, "bad URL " + uri + ": " + e, start);
    }
    c.setInstanceFollowRedirects(false);
    c.setUseCaches(false);
    // (at least 1 ms: 0 would mean for ever)
    c.setConnectTimeout(
        (int) Math.max(1, Math.min(CONNECT_TIMEOUT.toMillis(), timeout.toMillis())));
    c.setReadTimeout((int) Math.max(1, timeout.toMillis()));
    c.setRequestProperty("Metadata", "true");
    c.setRequestProperty("Accept", "application/json");
    try {
      if (postBody != null) {
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
      }
      try {
        c.connect();
      } catch (SocketTimeoutException e) {
        return failed(ImdsFailure.Kind.CONNECTION, 0, "connect timeout", start);
      } catch (ConnectException e) {
        return failed(ImdsFailure.Kind.CONNECTION, 0, "connection refused or unreachable", start);
      }
      if (postBody != null) {
        try (java.io.OutputStream out = c.getOutputStream()) {
          out.write(postBody);
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
