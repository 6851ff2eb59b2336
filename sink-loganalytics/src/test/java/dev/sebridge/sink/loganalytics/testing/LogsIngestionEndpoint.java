package dev.sebridge.sink.loganalytics.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sebridge.simulator.azure.LoopbackTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;

/**
 * The upload side of the Azure Monitor Logs Ingestion API, on loopback, for tests: {@code POST
 * /dataCollectionRules/{ruleId}/streams/{stream}?api-version=2023-01-01} with a bearer token and a
 * gzip (or plain) JSON array of rows. Answers 204 and records the rows, or what it was told to
 * answer next (429 with Retry-After, 5xx). Checks what the service checks: HTTPS (the Azure SDK
 * refuses to send a token over plain HTTP anyway), api-version, a bearer token, a known rule and
 * stream, a JSON array, and at most 1 MB per call (413 above).
 *
 * <p>The certificate is self-signed for 127.0.0.1 and made with the JDK's keytool; {@link
 * #trustStore()} holds it for clients in other processes ({@code -Djavax.net.ssl.trustStore}).
 */
public final class LogsIngestionEndpoint implements AutoCloseable {
  public static final String API_VERSION = "2023-01-01";
  public static final int MAX_BODY_BYTES = 1024 * 1024;
  public static final String TRUST_STORE_PASSWORD = LoopbackTls.PASSWORD;

  private static final Pattern PATH =
      Pattern.compile("/dataCollectionRules/([^/]+)/streams/([^/]+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one call looked like, and what it was answered. */
  public record Call(
      String ruleId,
      String stream,
      String apiVersion,
      String authorization,
      String contentEncoding,
      int uncompressedBytes,
      int rows,
      int status) {}

  /** An answer to give instead of 204. */
  public record Fault(int status, Map<String, String> headers, String body) {}

  private final String ruleId;
  private final String stream;
  private final LoopbackTls keys;
  private final List<JsonNode> rows = new ArrayList<>();
  private final List<Call> calls = new ArrayList<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private HttpsServer server;
  private int port;

  private LogsIngestionEndpoint(String ruleId, String stream, LoopbackTls keys) {
    this.ruleId = ruleId;
    this.stream = stream;
    this.keys = keys;
  }

  /** Starts on a free loopback port, accepting uploads for this rule and stream only. */
  public static LogsIngestionEndpoint start(String ruleId, String stream) throws IOException {
    LogsIngestionEndpoint e = new LogsIngestionEndpoint(ruleId, stream, LoopbackTls.get());
    e.listen(0);
    return e;
  }

  private void listen(int onPort) throws IOException {
    HttpsServer s =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 16);
    s.setHttpsConfigurator(new HttpsConfigurator(keys.serverContext()));
    s.setExecutor(Executors.newFixedThreadPool(2));
    s.createContext("/", this::handle);
    s.start();
    server = s;
    port = s.getAddress().getPort();
  }

  /** Down: connections are refused until {@link #restart()}. */
  public synchronized void stop() {
    if (server != null) {
      server.stop(0);
      ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
      server = null;
    }
  }

  /** Up again on the same port. */
  public synchronized void restart() throws IOException {
    stop();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        listen(port);
        return;
      } catch (java.net.BindException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IOException(ie);
        }
      }
    }
  }

  public String endpoint() {
    return "https://127.0.0.1:" + port;
  }

  /**
   * A PKCS12 trust store holding this endpoint's certificate (password {@value
   * #TRUST_STORE_PASSWORD}).
   */
  public Path trustStore() {
    return keys.trustStore();
  }

  /** An SSL context trusting this endpoint, for in-process clients. */
  public SSLContext clientContext() {
    return keys.clientContext();
  }

  /** The next {@code times} calls get this answer instead of 204 (and store nothing). */
  public synchronized void failNext(int times, int status, Map<String, String> headers) {
    for (int i = 0; i < times; i++) {
      faults.add(
          new Fault(
              status,
              headers,
              "{\"error\":{\"code\":\"Injected\",\"message\":\"injected " + status + "\"}}"));
    }
  }

  /** The next {@code times} calls are answered normally (put before {@link #failNext}). */
  public synchronized void passNext(int times) {
    for (int i = 0; i < times; i++) {
      faults.add(new Fault(204, Map.of(), ""));
    }
  }

  public synchronized List<JsonNode> rows() {
    return List.copyOf(rows);
  }

  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      URI uri = ex.getRequestURI();
      String apiVersion = query(uri, "api-version");
      String auth = ex.getRequestHeaders().getFirst("Authorization");
      String encoding = ex.getRequestHeaders().getFirst("Content-Encoding");
      byte[] raw = ex.getRequestBody().readAllBytes();
      Matcher m = PATH.matcher(uri.getPath());
      if (!"POST".equals(ex.getRequestMethod()) || !m.matches()) {
        answer(ex, 404, "NotFound", "no such resource");
        return;
      }
      String rule = m.group(1);
      String str = m.group(2);
      byte[] body;
      try {
        body = "gzip".equalsIgnoreCase(encoding) ? gunzip(raw) : raw;
      } catch (IOException e) {
        record(rule, str, apiVersion, auth, encoding, raw.length, 0, 400);
        answer(ex, 400, "InvalidContentEncoding", "body is not gzip");
        return;
      }
      Fault fault;
      synchronized (this) {
        fault = faults.poll();
      }
      List<JsonNode> received = new ArrayList<>();
      Fault reply;
      if (!API_VERSION.equals(apiVersion)) {
        reply = error(400, "InvalidApiVersion", "api-version must be " + API_VERSION);
      } else if (auth == null || !auth.startsWith("Bearer ") || auth.length() < 10) {
        reply = error(401, "InvalidToken", "a bearer token is required");
      } else if (!rule.equals(ruleId) || !str.equals(stream)) {
        reply = error(404, "NotFound", "unknown rule or stream " + rule + "/" + str);
      } else if (body.length > MAX_BODY_BYTES) {
        reply = error(413, "ContentLengthLimitExceeded", "more than 1 MB in one call");
      } else if (fault != null && fault.status() != 204) {
        reply = fault;
      } else {
        JsonNode array;
        try {
          array = JSON.readTree(body);
        } catch (IOException e) {
          array = null;
        }
        if (array == null || !array.isArray()) {
          reply = error(400, "InvalidPayload", "body is not a JSON array");
        } else {
          array.forEach(received::add);
          synchronized (this) {
            rows.addAll(received);
          }
          reply = new Fault(204, Map.of(), "");
        }
      }
      // Recorded before the client hears the answer: a test reading calls() after its upload
      // returned sees every call.
      record(rule, str, apiVersion, auth, encoding, body.length, received.size(), reply.status());
      reply.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
      send(ex, reply.status(), reply.body());
    }
  }

  private static Fault error(int status, String code, String message) {
    return new Fault(
        status,
        Map.of(),
        JSON.createObjectNode()
            .set("error", JSON.createObjectNode().put("code", code).put("message", message))
            .toString());
  }

  private synchronized void record(
      String rule, String str, String v, String auth, String enc, int bytes, int n, int status) {
    calls.add(new Call(rule, str, v, auth, enc, bytes, n, status));
  }

  private static void answer(HttpExchange ex, int status, String code, String message)
      throws IOException {
    Fault reply = error(status, code, message);
    send(ex, reply.status(), reply.body());
  }

  private static int send(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0) {
      ex.getResponseHeaders().set("Content-Type", "application/json");
    }
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
    return status;
  }

  private static byte[] gunzip(byte[] raw) throws IOException {
    try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(raw))) {
      return in.readAllBytes();
    }
  }

  private static String query(URI uri, String name) {
    String q = uri.getRawQuery();
    if (q == null) {
      return null;
    }
    for (String part : q.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).equals(name)) {
        return java.net.URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Override
  public void close() {
    stop();
  }
}
