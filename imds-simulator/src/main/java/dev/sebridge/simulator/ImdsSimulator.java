package dev.sebridge.simulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>This class is the public face and the server's lifecycle; the events and their lifecycles are
 * {@link EventBook}'s, the HTTP answers {@link ImdsEndpoints}'.
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

  private final double timeScale;
  private final List<SimVm> vms;
  private final EventBook book;
  private final ImdsEndpoints endpoints;
  private final HttpServer server;
  private final ExecutorService httpThreads;
  private final ScheduledExecutorService ticker;

  /** A managed identity token handed out: for which resource, to which identity (null: system). */
  public record TokenRequest(String resource, String clientId, String accessToken) {}

  ImdsSimulator(SimulatorBuilder b) throws IOException {
    this.timeScale = b.timeScale;
    this.vms = List.copyOf(b.vms.isEmpty() ? List.of(SimVm.of("sim-vm-0", defaultVmId(0))) : b.vms);
    this.book = new EventBook(b.clock, b.timeScale, b.approvalStartDelay);
    this.endpoints =
        new ImdsEndpoints(this, book, vms, b.clock, b.firstCallDelay, b.computeMetadata);
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
    server.createContext("/", endpoints::handle);
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "imds-simulator-clock");
              t.setDaemon(true);
              return t;
            });
  }

  public static SimulatorBuilder builder() {
    return new SimulatorBuilder();
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
  public String addEvent(EventSpec spec) {
    return book.add(spec);
  }

  /** Starts a Scheduled event now, as Azure does at NotBefore. */
  public void startEvent(String eventId) {
    book.start(eventId);
  }

  /** Removes an event (finished), whatever its state. */
  public void completeEvent(String eventId) {
    book.complete(eventId);
  }

  /** Azure cancels a Scheduled event: it disappears with no impact. */
  public void cancelEvent(String eventId) {
    book.cancel(eventId);
  }

  /** Azure changes the VMs an event lists: the next document lists these (a new incarnation). */
  public void changeResources(String eventId, List<String> resources) {
    book.resources(eventId, resources);
  }

  /** Moves NotBefore of a Scheduled event (Azure reschedules). */
  public void rescheduleEvent(String eventId, double noticeSeconds) {
    book.reschedule(eventId, noticeSeconds);
  }

  /** Queues faults for the next scheduled-events GETs, each answering one request. */
  public void injectFault(Fault fault, int times) {
    book.injectFault(fault, times);
  }

  /** Drops every queued fault: IMDS answers normally again. */
  public void clearFaults() {
    book.clearFaults();
  }

  public int pendingFaults() {
    return book.pendingFaults();
  }

  public long documentIncarnation() {
    return book.incarnation();
  }

  /** The status of an event ("Scheduled", "Started"), or empty once it is gone. */
  public Optional<String> eventStatus(String eventId) {
    return book.status(eventId);
  }

  public List<String> eventIds() {
    return book.eventIds();
  }

  /**
   * When the event left the document (finished, or canceled), if it has: with {@link
   * #startRequests()}, the independent record of how long an approval kept a VM unavailable.
   */
  public Optional<Instant> eventEndedAt(String eventId) {
    return book.endedAt(eventId);
  }

  public boolean isIdle() {
    return book.isIdle();
  }

  // ---------------------------------------------------------------- what it was asked

  public List<StartRequestRecord> startRequests() {
    return endpoints.startRequests();
  }

  /** When the first GET on the scheduled events path arrived, if any. */
  public Optional<Instant> firstScheduledEventsGetAt() {
    return endpoints.firstScheduledEventsGetAt();
  }

  /** GET requests on the scheduled events path, refused ones included. */
  public long scheduledEventsGets() {
    return endpoints.scheduledEventsGets();
  }

  /** Managed identity tokens handed out so far. */
  public List<TokenRequest> tokenRequests() {
    return endpoints.tokenRequests();
  }

  public long computeGets() {
    return endpoints.computeGets();
  }

  /**
   * The {@code DocumentIncarnation} of the last scheduled-events document this VM was sent whole
   * (-1 before its first), so a test can wait until an agent has seen the current document instead
   * of sleeping: every state a VM was served is a state its agent read.
   */
  public long servedIncarnation(String vmName) {
    return endpoints.servedIncarnation(vmName);
  }

  /**
   * Headers of the newest {@value #RECORDED_REQUESTS} requests received, oldest first (header names
   * lower-cased).
   */
  public List<Map<String, List<String>>> requestHeaders() {
    return endpoints.requestHeaders();
  }

  public Optional<Instant> lastPoll() {
    return book.lastPoll();
  }

  /** The document a VM would get now, as JSON. */
  public ObjectNode document(String apiVersion) {
    return book.document(apiVersion);
  }

  private void advanceSafely() {
    try {
      book.advance();
    } catch (RuntimeException ex) {
      LOG.error("simulator clock failed", ex);
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    server.stop(0);
    httpThreads.shutdownNow();
  }
}
