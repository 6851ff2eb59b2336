package dev.sebridge.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A faithful simulator of the Azure IMDS Scheduled Events endpoint, on loopback.
 *
 * <p>It answers {@code GET/POST /metadata/scheduledevents} and {@code GET
 * /metadata/instance/compute} like IMDS does (400 without {@code Metadata: true}, without or with
 * an unknown {@code api-version}, or with {@code X-Forwarded-For}), runs event lifecycles on its
 * own (Scheduled, then Started on approval or at NotBefore, then gone after a while), increments
 * DocumentIncarnation on every change, and injects faults on demand. Several VMs can be served at
 * once under {@code /vm/<name>/metadata/...}; they all see every event, as the VMs of one
 * availability set or placement group do, and one approval releases the event for all of them.
 *
 * <p>Time can be scaled: with a time scale of 60, an event with 15 minutes of notice starts after
 * 15 real seconds. The NotBefore written in the document is real wall-clock time.
 *
 * <p>A small control API under {@code /control/} lets users script it over HTTP.
 */
public final class ImdsSimulator implements AutoCloseable {

  /** Scheduled events API versions IMDS accepts, oldest first. */
  public static final List<String> SCHEDULED_EVENTS_API_VERSIONS =
      List.of(
          "2017-03-01",
          "2017-08-01",
          "2017-11-01",
          "2019-01-01",
          "2019-04-01",
          "2019-08-01",
          "2020-07-01");

  /** How many requests' headers are kept for {@link #requestHeaders()}: the newest ones. */
  public static final int RECORDED_REQUESTS = 1000;

  static {
    // The JDK server writes an answer's headers and body as two segments; without TCP_NODELAY the
    // body waits for the client's delayed ACK (about 40 ms per request). The setting is read once
    // per JVM, when the first com.sun.net.httpserver server is made.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(ImdsSimulator.class);
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC).withLocale(Locale.US);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Clock clock;
  private final double timeScale;
  private final Duration firstCallDelay;
  private final Duration approvalStartDelay;
  private final List<SimVm> vms;
  private final HttpServer server;
  private final ExecutorService httpThreads;
  private final ScheduledExecutorService ticker;

  // Everything below is guarded by "this".
  private final Map<String, SimEvent> events = new LinkedHashMap<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private long incarnation = 1;
  private boolean firstCallServed;
  private Instant lastPoll;

  private final List<StartRequestRecord> startRequests = new CopyOnWriteArrayList<>();
  // Guarded by itself; bounded so that a long `sebridge simulate` run does not grow.
  private final Deque<Map<String, List<String>>> requestHeaders = new ArrayDeque<>();
  private final AtomicLong scheduledEventsGets = new AtomicLong();
  private final AtomicLong computeGets = new AtomicLong();
  private final List<TokenRequest> tokenRequests = new CopyOnWriteArrayList<>();

  /** A managed identity token handed out: for which resource, to which identity (null: system). */
  public record TokenRequest(String resource, String clientId, String accessToken) {}

  private volatile Instant firstGetAt;

  private ImdsSimulator(Builder b) throws IOException {
    this.clock = b.clock;
    this.timeScale = b.timeScale;
    this.firstCallDelay = b.firstCallDelay;
    this.approvalStartDelay = b.approvalStartDelay;
    this.vms = List.copyOf(b.vms.isEmpty() ? List.of(SimVm.of("sim-vm-0", defaultVmId(0))) : b.vms);
    this.server = HttpServer.create(new InetSocketAddress(b.bindAddress, b.port), 64);
    this.httpThreads =
        Executors.newFixedThreadPool(
            8,
            r -> {
              Thread t = new Thread(r, "imds-simulator-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(httpThreads);
    server.createContext("/", this::handle);
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "imds-simulator-clock");
              t.setDaemon(true);
              return t;
            });
  }

  public static Builder builder() {
    return new Builder();
  }

  static String defaultVmId(int i) {
    return String.format("5c2e3c9a-0000-4000-8000-%012d", i);
  }

  /** Starts serving; returns this. */
  public ImdsSimulator start() {
    server.start();
    ticker.scheduleAtFixedRate(this::advanceSafely, 10, 10, TimeUnit.MILLISECONDS);
    LOG.info("IMDS simulator listening on {} (time scale {})", baseUri(), timeScale);
    return this;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Base URL of the first VM's IMDS, e.g. {@code http://127.0.0.1:PORT}. */
  public URI baseUri() {
    return URI.create("http://" + hostForUri() + ":" + port());
  }

  /** Base URL of one VM's IMDS, e.g. {@code http://127.0.0.1:PORT/vm/WestNO_1}. */
  public URI baseUri(String vmName) {
    vm(vmName); // fail fast on unknown names
    return URI.create(baseUri() + "/vm/" + vmName);
  }

  private String hostForUri() {
    InetAddress a = server.getAddress().getAddress();
    if (a.isAnyLocalAddress()) {
      return "127.0.0.1";
    }
    String h = a.getHostAddress();
    return h.contains(":") ? "[" + h + "]" : h;
  }

  public List<SimVm> vms() {
    return vms;
  }

  public SimVm vm(String name) {
    return vms.stream()
        .filter(v -> v.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no simulated VM named " + name));
  }

  public double timeScale() {
    return timeScale;
  }

  // ---------------------------------------------------------------- scripting API

  /** Creates an event (Scheduled, or Started for a hardware failure); returns its EventId. */
  public synchronized String addEvent(EventSpec spec) {
    Instant now = clock.instant();
    if (events.containsKey(key(spec.eventId()))) {
      throw new IllegalArgumentException("event " + spec.eventId() + " exists already");
    }
    SimEvent e = new SimEvent(spec);
    if (spec.started()) {
      e.status = "Started";
      e.startedAt = now;
    } else {
      e.status = "Scheduled";
      e.notBefore = now.plus(real(spec.noticeSeconds()));
    }
    events.put(key(spec.eventId()), e);
    incarnation++;
    LOG.info("sim: {} {} {} for {}", e.status, spec.eventType(), spec.eventId(), spec.resources());
    return spec.eventId();
  }

  /** Starts a Scheduled event now, as Azure does at NotBefore. */
  public synchronized void startEvent(String eventId) {
    SimEvent e = require(eventId);
    if (!"Started".equals(e.status)) {
      e.status = "Started";
      e.startedAt = clock.instant();
      e.notBefore = null;
      incarnation++;
    }
  }

  /** Removes an event (finished), whatever its state. */
  public synchronized void completeEvent(String eventId) {
    require(eventId);
    events.remove(key(eventId));
    incarnation++;
  }

  /** Azure cancels a Scheduled event: it disappears with no impact. */
  public synchronized void cancelEvent(String eventId) {
    SimEvent e = require(eventId);
    if (!"Scheduled".equals(e.status)) {
      throw new IllegalStateException("only a Scheduled event can be canceled: " + eventId);
    }
    events.remove(key(eventId));
    incarnation++;
  }

  /** Moves NotBefore of a Scheduled event (Azure reschedules). */
  public synchronized void rescheduleEvent(String eventId, double noticeSeconds) {
    SimEvent e = require(eventId);
    e.notBefore = clock.instant().plus(real(noticeSeconds));
    incarnation++;
  }

  /** Queues faults for the next scheduled-events GETs, each answering one request. */
  public synchronized void injectFault(Fault fault, int times) {
    for (int i = 0; i < times; i++) {
      faults.add(fault);
    }
  }

  /** Drops every queued fault: IMDS answers normally again. */
  public synchronized void clearFaults() {
    faults.clear();
  }

  public synchronized int pendingFaults() {
    return faults.size();
  }

  public synchronized long documentIncarnation() {
    return incarnation;
  }

  /** The status of an event ("Scheduled", "Started"), or empty once it is gone. */
  public synchronized Optional<String> eventStatus(String eventId) {
    return Optional.ofNullable(events.get(key(eventId))).map(e -> e.status);
  }

  public synchronized List<String> eventIds() {
    return events.values().stream().map(e -> e.spec.eventId()).toList();
  }

  public synchronized boolean isIdle() {
    return events.isEmpty();
  }

  public List<StartRequestRecord> startRequests() {
    return List.copyOf(startRequests);
  }

  /** When the first GET on the scheduled events path arrived, if any. */
  public Optional<Instant> firstScheduledEventsGetAt() {
    return Optional.ofNullable(firstGetAt);
  }

  /** GET requests on the scheduled events path, refused ones included. */
  public long scheduledEventsGets() {
    return scheduledEventsGets.get();
  }

  /** Managed identity tokens handed out so far. */
  public List<TokenRequest> tokenRequests() {
    return List.copyOf(tokenRequests);
  }

  public long computeGets() {
    return computeGets.get();
  }

  /**
   * Headers of the newest {@value #RECORDED_REQUESTS} requests received, oldest first (header names
   * lower-cased).
   */
  public List<Map<String, List<String>>> requestHeaders() {
    synchronized (requestHeaders) {
      return List.copyOf(requestHeaders);
    }
  }

  public synchronized Optional<Instant> lastPoll() {
    return Optional.ofNullable(lastPoll);
  }

  /** The document a VM would get now, as JSON. */
  public synchronized ObjectNode document(String apiVersion) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("DocumentIncarnation", incarnation);
    ArrayNode arr = doc.putArray("Events");
    for (SimEvent e : events.values()) {
      if (!visibleIn(e.spec.eventType(), apiVersion)) {
        continue;
      }
      arr.add(e.toJson(apiVersion));
    }
    return doc;
  }

  // ---------------------------------------------------------------- lifecycle

  private Duration real(double simSeconds) {
    return Duration.ofNanos(Math.max(0, Math.round(simSeconds * 1e9 / timeScale)));
  }

  private void advanceSafely() {
    try {
      advance();
    } catch (RuntimeException ex) {
      LOG.error("simulator clock failed", ex);
    }
  }

  /** Runs lifecycles up to now. Called by the simulator's clock thread. */
  synchronized void advance() {
    Instant now = clock.instant();
    boolean changed = false;
    var it = events.values().iterator();
    while (it.hasNext()) {
      SimEvent e = it.next();
      if ("Scheduled".equals(e.status)) {
        boolean approvedAndDue =
            e.approvedAt != null && !now.isBefore(e.approvedAt.plus(approvalStartDelay));
        if (approvedAndDue || (e.notBefore != null && !now.isBefore(e.notBefore))) {
          e.status = "Started";
          e.startedAt = now;
          e.notBefore = null;
          changed = true;
        }
      } else if ("Started".equals(e.status)
          && !now.isBefore(e.startedAt.plus(real(e.spec.startedSeconds())))) {
        it.remove();
        changed = true;
      }
    }
    if (changed) {
      incarnation++;
    }
  }

  private SimEvent require(String eventId) {
    SimEvent e = events.get(key(eventId));
    if (e == null) {
      throw new IllegalArgumentException("no event " + eventId);
    }
    return e;
  }

  private static String key(String eventId) {
    return eventId.toLowerCase(Locale.ROOT);
  }

  static boolean visibleIn(String eventType, String apiVersion) {
    return switch (eventType) {
      case "Preempt" -> apiVersion.compareTo("2017-11-01") >= 0;
      case "Terminate" -> apiVersion.compareTo("2019-01-01") >= 0;
      default -> true;
    };
  }

  // ---------------------------------------------------------------- HTTP

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      ex.getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
      synchronized (requestHeaders) {
        if (requestHeaders.size() == RECORDED_REQUESTS) {
          requestHeaders.removeFirst();
        }
        requestHeaders.addLast(headers);
      }
      String path = ex.getRequestURI().getPath();
      if (path.startsWith("/control/")) {
        SimulatorControlApi.handle(this, ex, path.substring("/control".length()));
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
    if (apiVersion == null || !SCHEDULED_EVENTS_API_VERSIONS.contains(apiVersion)) {
      ObjectNode err = JSON.createObjectNode();
      err.put(
          "error",
          "Bad request. api-version is invalid or was not specified in the request. For more"
              + " information refer to aka.ms/azureimds");
      ArrayNode newest = err.putArray("newest-versions");
      for (int i = SCHEDULED_EVENTS_API_VERSIONS.size() - 1; i >= 0 && newest.size() < 3; i--) {
        newest.add(SCHEDULED_EVENTS_API_VERSIONS.get(i));
      }
      send(ex, 400, err.toString());
      return;
    }
    switch (ex.getRequestMethod()) {
      case "GET" -> getScheduledEvents(ex, apiVersion);
      case "POST" -> postStartRequests(ex, vm);
      default -> send(ex, 405, "{\"error\":\"Method not allowed\"}");
    }
  }

  private void getScheduledEvents(HttpExchange ex, String apiVersion) throws IOException {
    Fault fault;
    boolean first;
    synchronized (this) {
      lastPoll = clock.instant();
      fault = faults.poll();
      first = !firstCallServed;
      firstCallServed = true;
    }
    if (first && !firstCallDelay.isZero()) {
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
    send(ex, 200, document(apiVersion).toString());
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
    synchronized (this) {
      Instant now = clock.instant();
      for (String id : ids) {
        SimEvent e = events.get(key(id));
        if (e != null && "Scheduled".equals(e.status) && e.approvedAt == null) {
          e.approvedAt = now;
        }
      }
    }
    startRequests.add(new StartRequestRecord(clock.instant(), vm.name(), List.copyOf(ids), 200));
    advance();
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
    tokenRequests.add(new TokenRequest(resource, clientId, token));
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

  @Override
  public void close() {
    ticker.shutdownNow();
    server.stop(0);
    httpThreads.shutdownNow();
  }

  // ---------------------------------------------------------------- model

  private static final class SimEvent {
    final EventSpec spec;
    String status;
    Instant notBefore;
    Instant startedAt;
    Instant approvedAt;

    SimEvent(EventSpec spec) {
      this.spec = spec;
    }

    ObjectNode toJson(String apiVersion) {
      ObjectNode n = JSON.createObjectNode();
      n.put("EventId", spec.eventId());
      n.put("EventType", spec.eventType());
      n.put("ResourceType", "VirtualMachine");
      ArrayNode res = n.putArray("Resources");
      spec.resources().forEach(res::add);
      n.put("EventStatus", status);
      n.put("NotBefore", notBefore == null ? "" : HTTP_DATE.format(notBefore));
      if (apiVersion.compareTo("2019-04-01") >= 0) {
        n.put("Description", spec.description());
      }
      if (apiVersion.compareTo("2019-08-01") >= 0) {
        n.put("EventSource", spec.eventSource());
      }
      if (apiVersion.compareTo("2020-07-01") >= 0) {
        n.put("DurationInSeconds", spec.durationInSeconds());
      }
      spec.extraFields().forEach((k, v) -> n.set(k, JSON.valueToTree(v)));
      return n;
    }
  }

  /** Builds a simulator. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private double timeScale = 1.0;
    private Duration firstCallDelay = Duration.ZERO;
    private Duration approvalStartDelay = Duration.ZERO;
    private final List<SimVm> vms = new ArrayList<>();
    private InetAddress bindAddress = InetAddress.getLoopbackAddress();
    private int port;

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** Simulated seconds per real second (60 = one simulated minute per real second). */
    public Builder timeScale(double scale) {
      if (!(scale > 0)) {
        throw new IllegalArgumentException("time scale must be > 0");
      }
      this.timeScale = scale;
      return this;
    }

    /** Delay of the very first scheduled-events answer (IMDS may take 2 minutes to enable). */
    public Builder firstCallDelay(Duration d) {
      this.firstCallDelay = d;
      return this;
    }

    /** Real delay between an approval and the event starting. */
    public Builder approvalStartDelay(Duration d) {
      this.approvalStartDelay = d;
      return this;
    }

    public Builder vm(SimVm vm) {
      this.vms.add(vm);
      return this;
    }

    public Builder vms(List<SimVm> vms) {
      this.vms.addAll(vms);
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder bindAddress(InetAddress address) {
      this.bindAddress = address;
      return this;
    }

    public ImdsSimulator build() {
      try {
        return new ImdsSimulator(this);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot bind the simulator", e);
      }
    }
  }
}
