package dev.sebridge.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator's HTTP side: IMDS's answers (400 without {@code Metadata: true}, with an unknown
 * {@code api-version} or with {@code X-Forwarded-For}; scheduled events GET and POST, compute
 * metadata, managed identity tokens) for each simulated VM, the control API under {@code
 * /control/}, and what was asked of it (StartRequests, request headers, counts), for tests to read.
 */
final class ImdsEndpoints {
  private static final Logger LOG = LoggerFactory.getLogger(ImdsSimulator.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ImdsSimulator sim;
  private final EventBook book;
  private final List<SimVm> vms;
  private final Clock clock;
  private final Duration firstCallDelay;
  private final boolean computeMetadata;

  private final List<StartRequestRecord> startRequests = new CopyOnWriteArrayList<>();
  // Guarded by itself; bounded so that a long `sebridge simulate` run does not grow.
  private final Deque<Map<String, List<String>>> requestHeaders = new ArrayDeque<>();
  private final AtomicLong scheduledEventsGets = new AtomicLong();
  private final AtomicLong computeGets = new AtomicLong();
  // The DocumentIncarnation of the last document each VM was served (by VM name).
  private final Map<String, Long> servedIncarnations = new ConcurrentHashMap<>();
  private final List<ImdsSimulator.TokenRequest> tokenRequests = new CopyOnWriteArrayList<>();
  private volatile Instant firstGetAt;

  ImdsEndpoints(
      ImdsSimulator sim,
      EventBook book,
      List<SimVm> vms,
      Clock clock,
      Duration firstCallDelay,
      boolean computeMetadata) {
    this.sim = sim;
    this.book = book;
    this.vms = vms;
    this.clock = clock;
    this.firstCallDelay = firstCallDelay;
    this.computeMetadata = computeMetadata;
  }

  List<StartRequestRecord> startRequests() {
    return List.copyOf(startRequests);
  }

  Optional<Instant> firstScheduledEventsGetAt() {
    return Optional.ofNullable(firstGetAt);
  }

  long scheduledEventsGets() {
    return scheduledEventsGets.get();
  }

  List<ImdsSimulator.TokenRequest> tokenRequests() {
    return List.copyOf(tokenRequests);
  }

  long computeGets() {
    return computeGets.get();
  }

  long servedIncarnation(String vmName) {
    return servedIncarnations.getOrDefault(vmName, -1L);
  }

  List<Map<String, List<String>>> requestHeaders() {
    synchronized (requestHeaders) {
      return List.copyOf(requestHeaders);
    }
  }

  void handle(HttpExchange ex) throws IOException {
    try (ex) {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      ex.getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
      synchronized (requestHeaders) {
        if (requestHeaders.size() == ImdsSimulator.RECORDED_REQUESTS) {
          requestHeaders.removeFirst();
        }
        requestHeaders.addLast(headers);
      }
      String path = ex.getRequestURI().getPath();
      if (path.startsWith("/control/")) {
        SimulatorControlApi.handle(sim, ex, path.substring("/control".length()));
        return;
      }
      SimVm vm = vms.get(0);
      if (path.startsWith("/vm/")) {
        int slash = path.indexOf('/', 4);
        String name = slash < 0 ? path.substring(4) : path.substring(4, slash);
        vm = vms.stream().filter(v -> v.name().equals(name)).findFirst().orElse(null);
        if (vm == null) {
          send(ex, 404, "{\"error\":\"Not found\"}");
          return;
        }
        path = slash < 0 ? "/" : path.substring(slash);
      }
      if (!"true".equals(ex.getRequestHeaders().getFirst("Metadata"))) {
        send(ex, 400, "{\"error\":\"Bad request. Required metadata header not specified\"}");
        return;
      }
      if (ex.getRequestHeaders().containsKey("X-Forwarded-For")) {
        send(ex, 400, "{\"error\":\"Bad request. X-Forwarded-For header is not allowed\"}");
        return;
      }
      Map<String, String> query = query(ex.getRequestURI());
      String apiVersion = query.get("api-version");
      switch (path) {
        case "/metadata/scheduledevents" -> scheduledEvents(ex, vm, apiVersion);
        case "/metadata/instance/compute" -> compute(ex, vm, apiVersion);
        case "/metadata/identity/oauth2/token" -> token(ex, vm, query);
        default -> send(ex, 404, "{\"error\":\"Not found\"}");
      }
    } catch (RuntimeException e) {
      LOG.error("simulator failed to answer {}", ex.getRequestURI(), e);
      send(ex, 500, "{\"error\":\"simulator bug\"}");
    }
  }

  private void scheduledEvents(HttpExchange ex, SimVm vm, String apiVersion) throws IOException {
    if ("GET".equals(ex.getRequestMethod())) {
      if (scheduledEventsGets.incrementAndGet() == 1) {
        firstGetAt = clock.instant();
      }
    }
    if (apiVersion == null || !ImdsSimulator.SCHEDULED_EVENTS_API_VERSIONS.contains(apiVersion)) {
      ObjectNode err = JSON.createObjectNode();
      err.put(
          "error",
          "Bad request. api-version is invalid or was not specified in the request. For more"
              + " information refer to aka.ms/azureimds");
      ArrayNode newest = err.putArray("newest-versions");
      for (int i = ImdsSimulator.SCHEDULED_EVENTS_API_VERSIONS.size() - 1;
          i >= 0 && newest.size() < 3;
          i--) {
        newest.add(ImdsSimulator.SCHEDULED_EVENTS_API_VERSIONS.get(i));
      }
      send(ex, 400, err.toString());
      return;
    }
    switch (ex.getRequestMethod()) {
      case "GET" -> getScheduledEvents(ex, vm, apiVersion);
      case "POST" -> postStartRequests(ex, vm);
      default -> send(ex, 405, "{\"error\":\"Method not allowed\"}");
    }
  }

  private void getScheduledEvents(HttpExchange ex, SimVm vm, String apiVersion) throws IOException {
    EventBook.Poll poll = book.poll();
    Fault fault = poll.fault();
    if (poll.first() && !firstCallDelay.isZero()) {
      sleep(firstCallDelay.toMillis());
    }
    if (fault instanceof Fault.Status s) {
      send(ex, s.status(), s.body());
      return;
    } else if (fault instanceof Fault.Garbage g) {
      send(ex, 200, g.body());
      return;
    } else if (fault instanceof Fault.NotADocument n) {
      send(ex, 200, n.body());
      return;
    } else if (fault instanceof Fault.Delay d) {
      sleep(d.millis());
    }
    ObjectNode document = book.document(apiVersion);
    send(ex, 200, document.toString());
    servedIncarnations.merge(vm.name(), document.path("DocumentIncarnation").asLong(), Math::max);
  }

  private void postStartRequests(HttpExchange ex, SimVm vm) throws IOException {
    byte[] body = ex.getRequestBody().readAllBytes();
    List<String> ids = new ArrayList<>();
    try {
      JsonNode root = JSON.readTree(body);
      JsonNode reqs = root == null ? null : root.get("StartRequests");
      if (reqs == null || !reqs.isArray()) {
        throw new IllegalArgumentException("no StartRequests array");
      }
      for (JsonNode r : reqs) {
        JsonNode id = r.get("EventId");
        if (id == null || !id.isTextual() || id.asText().isBlank()) {
          throw new IllegalArgumentException("StartRequest without EventId");
        }
        ids.add(id.asText());
      }
    } catch (IOException | IllegalArgumentException e) {
      startRequests.add(new StartRequestRecord(clock.instant(), vm.name(), ids, 400));
      send(ex, 400, "{\"error\":\"Bad request. " + e.getMessage().replace('"', '\'') + "\"}");
      return;
    }
    book.approve(ids);
    startRequests.add(new StartRequestRecord(clock.instant(), vm.name(), List.copyOf(ids), 200));
    book.advance();
    send(ex, 200, "");
  }

  private void compute(HttpExchange ex, SimVm vm, String apiVersion) throws IOException {
    computeGets.incrementAndGet();
    if (apiVersion == null || apiVersion.isBlank()) {
      send(ex, 400, "{\"error\":\"Bad request. api-version was not specified in the request\"}");
      return;
    }
    if (!"GET".equals(ex.getRequestMethod())) {
      send(ex, 405, "{\"error\":\"Method not allowed\"}");
      return;
    }
    if (!computeMetadata) {
      send(ex, 404, "{\"error\":\"Not found\"}");
      return;
    }
    send(ex, 200, JSON.writeValueAsString(vm.computeDocument()));
  }

  /**
   * The managed identity endpoint, as IMDS answers it: a bearer token for {@code resource}, for the
   * system-assigned identity or the user-assigned one named by {@code client_id}. The token is
   * opaque ({@code sim-mi.<vm>.<identity>.<n>}); no signature, nothing to validate.
   */
  private void token(HttpExchange ex, SimVm vm, Map<String, String> query) throws IOException {
    String resource = query.get("resource");
    if (query.get("api-version") == null || resource == null || resource.isBlank()) {
      send(
          ex,
          400,
          "{\"error\":\"invalid_request\",\"error_description\":\"Required query variable"
              + " 'resource' or 'api-version' is missing\"}");
      return;
    }
    String clientId = query.get("client_id");
    String token =
        "sim-mi."
            + vm.name()
            + "."
            + (clientId == null ? "system" : clientId)
            + "."
            + (tokenRequests.size() + 1);
    tokenRequests.add(new ImdsSimulator.TokenRequest(resource, clientId, token));
    long now = clock.instant().getEpochSecond();
    ObjectNode n = JSON.createObjectNode();
    n.put("access_token", token);
    n.put("client_id", clientId == null ? "00000000-0000-0000-0000-00000000c11d" : clientId);
    n.put("expires_in", "86399");
    n.put("expires_on", Long.toString(now + 86399));
    n.put("ext_expires_in", "86399");
    n.put("not_before", Long.toString(now));
    n.put("resource", resource);
    n.put("token_type", "Bearer");
    send(ex, 200, n.toString());
  }

  static Map<String, String> query(URI uri) {
    Map<String, String> q = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return q;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : part.substring(eq + 1);
      q.put(
          java.net.URLDecoder.decode(k, StandardCharsets.UTF_8),
          java.net.URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return q;
  }

  static void send(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
