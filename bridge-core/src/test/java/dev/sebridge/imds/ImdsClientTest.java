package dev.sebridge.imds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.Fault;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.testing.FakeProxy;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Isolated("sets the JVM-wide proxy properties")
class ImdsClientTest {
  static final Duration T = Duration.ofSeconds(5);
  ImdsSimulator sim;
  ImdsClient client;

  @BeforeEach
  void start() {
    sim = ImdsSimulator.builder().build().start();
    client = new ImdsClient(sim.baseUri(), "2020-07-01", "2021-02-01");
  }

  @AfterEach
  void stop() {
    sim.close();
  }

  @Test
  void readsDocumentsWithTheMandatoryHeaderAndNothingElse() {
    sim.addEvent(EventSpec.scheduled("Freeze", List.of("sim-vm-0")));
    ImdsResult<ScheduledEventsDocument> r = client.scheduledEvents(T);
    assertThat(r).isInstanceOf(ImdsResult.Ok.class);
    ScheduledEventsDocument d = ((ImdsResult.Ok<ScheduledEventsDocument>) r).value();
    assertThat(d.incarnation()).isEqualTo(2);
    assertThat(d.events()).hasSize(1);
    Map<String, List<String>> headers = sim.requestHeaders().get(sim.requestHeaders().size() - 1);
    assertThat(headers.get("metadata")).containsExactly("true");
    assertThat(headers).doesNotContainKey("x-forwarded-for");
    assertThat(headers).doesNotContainKey("upgrade");
  }

  @Test
  void readsTheVmIdentity() {
    ImdsResult<VmIdentity> r = client.identity(T);
    VmIdentity v = ((ImdsResult.Ok<VmIdentity>) r).value();
    assertThat(v.name()).isEqualTo("sim-vm-0");
    assertThat(v.vmId()).isEqualTo(sim.vms().get(0).vmId());
    assertThat(v.source()).endsWith("/virtualMachines/sim-vm-0");
  }

  @Test
  void postsOneRequestForAllEventIds() {
    String a = sim.addEvent(EventSpec.scheduled("Reboot", List.of("sim-vm-0")));
    String b = sim.addEvent(EventSpec.scheduled("Freeze", List.of("sim-vm-0")));
    ImdsResult<Integer> r = client.startEvents(List.of(a, b), T);
    assertThat(r).isInstanceOf(ImdsResult.Ok.class);
    assertThat(sim.startRequests())
        .singleElement()
        .satisfies(s -> assertThat(s.eventIds()).containsExactly(a, b));
    assertThat(sim.eventStatus(a)).contains("Started");
  }

  @ParameterizedTest
  @CsvSource({
    "500, SERVER_ERROR",
    "503, SERVER_ERROR",
    "429, THROTTLED",
    "410, GONE",
    "404, NOT_FOUND",
    "400, BAD_REQUEST",
    "418, UNEXPECTED_STATUS"
  })
  void classifiesErrorStatuses(int status, ImdsFailure.Kind kind) {
    sim.injectFault(new Fault.Status(status, null), 1);
    ImdsResult<ScheduledEventsDocument> r = client.scheduledEvents(T);
    ImdsFailure f = ((ImdsResult.Failed<ScheduledEventsDocument>) r).failure();
    assertThat(f.kind()).isEqualTo(kind);
    assertThat(f.httpStatus()).isEqualTo(status);
    assertThat(f.isTransient()).isEqualTo(kind != ImdsFailure.Kind.BAD_REQUEST);
  }

  @Test
  void garbageAndNonDocumentsAreMalformedNotEmpty() {
    sim.injectFault(new Fault.Garbage(null), 1);
    sim.injectFault(new Fault.NotADocument(null), 1);
    for (int i = 0; i < 2; i++) {
      ImdsResult<ScheduledEventsDocument> r = client.scheduledEvents(T);
      assertThat(((ImdsResult.Failed<ScheduledEventsDocument>) r).failure().kind())
          .isEqualTo(ImdsFailure.Kind.MALFORMED);
    }
  }

  /**
   * Only the configured IMDS base URL is ever contacted: a redirect (which a compromised or
   * impersonated endpoint could send) is an unexpected answer, never followed, for reads and for
   * StartRequests alike.
   */
  @ParameterizedTest
  @CsvSource({"301", "302", "303", "307", "308"})
  void redirectsAreNeverFollowed(int status) throws Exception {
    try (FakeProxy elsewhere = new FakeProxy()) {
      com.sun.net.httpserver.HttpServer redirecting =
          com.sun.net.httpserver.HttpServer.create(
              new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 4);
      redirecting.createContext(
          "/",
          ex -> {
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders()
                .set("Location", elsewhere.url() + ex.getRequestURI().toString());
            ex.sendResponseHeaders(status, -1);
            ex.close();
          });
      redirecting.start();
      try {
        ImdsClient c =
            new ImdsClient(
                URI.create("http://127.0.0.1:" + redirecting.getAddress().getPort()),
                "2020-07-01",
                "2021-02-01");
        assertThat(c.scheduledEvents(T)).isInstanceOf(ImdsResult.Failed.class);
        assertThat(c.identity(T)).isInstanceOf(ImdsResult.Failed.class);
        assertThat(c.startEvents(List.of("E-1"), T)).isInstanceOf(ImdsResult.Failed.class);
        assertThat(elsewhere.connections()).isZero();
      } finally {
        redirecting.stop(0);
      }
    }
  }

  @Test
  void urlsInsideDocumentsAndEventIdsAreOnlyData() throws Exception {
    try (FakeProxy elsewhere = new FakeProxy()) {
      String url = elsewhere.url() + "/metadata/scheduledevents";
      sim.addEvent(
          EventSpec.scheduled("Reboot", List.of(url))
              .withId(url)
              .withDescription("see " + url)
              .withExtraFields(Map.of("Location", url, "Href", url)));
      ImdsResult<ScheduledEventsDocument> r = client.scheduledEvents(T);
      assertThat(r).isInstanceOf(ImdsResult.Ok.class);
      assertThat(client.startEvents(List.of(url), T)).isInstanceOf(ImdsResult.Ok.class);
      assertThat(sim.startRequests()).hasSize(1);
      assertThat(elsewhere.connections()).isZero();
    }
  }

  @Test
  void slowAnswersTimeOut() {
    sim.injectFault(new Fault.Delay(2_000), 1);
    ImdsResult<ScheduledEventsDocument> r = client.scheduledEvents(Duration.ofMillis(300));
    assertThat(((ImdsResult.Failed<ScheduledEventsDocument>) r).failure().kind())
        .isEqualTo(ImdsFailure.Kind.TIMEOUT);
  }

  /**
   * A POST whose answer never comes is sent once: the JDK's own retry is off (the launcher, Main
   * and this build set {@code sun.net.http.retryPost=false}); retries are ImdsRetry's alone.
   */
  @Test
  void aPostWhoseAnswerIsLostIsNotRetriedByTheJdk() throws Exception {
    assertThat(System.getProperty(ImdsClient.NO_POST_RETRY)).isEqualTo("false");
    java.util.concurrent.atomic.AtomicInteger posts =
        new java.util.concurrent.atomic.AtomicInteger();
    try (ServerSocket server = new ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (java.net.Socket s = server.accept()) {
                    java.io.BufferedReader in =
                        new java.io.BufferedReader(
                            new java.io.InputStreamReader(
                                s.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
                    String first = in.readLine();
                    String line;
                    while ((line = in.readLine()) != null && !line.isEmpty()) {
                      // headers
                    }
                    if (first != null && first.startsWith("POST ")) {
                      posts.incrementAndGet();
                    }
                    // closed without an answer
                  } catch (java.io.IOException e) {
                    return;
                  }
                }
              });
      t.setDaemon(true);
      t.start();
      ImdsClient c =
          new ImdsClient(
              URI.create("http://127.0.0.1:" + server.getLocalPort()), "2020-07-01", "2021-02-01");
      ImdsResult<Integer> r = c.startEvents(List.of("E-1"), T);
      assertThat(((ImdsResult.Failed<Integer>) r).failure().kind())
          .isEqualTo(ImdsFailure.Kind.CONNECTION);
      // The server counts a POST before it closes the connection, so any retry has been counted.
      assertThat(posts.get()).isEqualTo(1);
    }
  }

  @Test
  void refusedConnectionsAreAConnectionFailure() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    ImdsClient nowhere =
        new ImdsClient(URI.create("http://127.0.0.1:" + port), "2020-07-01", "2021-02-01");
    ImdsResult<ScheduledEventsDocument> r = nowhere.scheduledEvents(T);
    assertThat(((ImdsResult.Failed<ScheduledEventsDocument>) r).failure().kind())
        .isEqualTo(ImdsFailure.Kind.CONNECTION);
  }

  @Test
  void neverGoesThroughAProxyWhateverTheSystemPropertiesSay() throws Exception {
    String[] props = {
      "http.proxyHost", "http.proxyPort", "https.proxyHost", "https.proxyPort", "http.nonProxyHosts"
    };
    Map<String, String> saved = new java.util.HashMap<>();
    for (String p : props) {
      saved.put(p, System.getProperty(p));
    }
    try (FakeProxy proxy = new FakeProxy()) {
      System.setProperty("http.proxyHost", "127.0.0.1");
      System.setProperty("http.proxyPort", String.valueOf(proxy.port()));
      System.setProperty("https.proxyHost", "127.0.0.1");
      System.setProperty("https.proxyPort", String.valueOf(proxy.port()));
      System.setProperty("http.nonProxyHosts", "");
      ImdsClient proxied = new ImdsClient(sim.baseUri(), "2020-07-01", "2021-02-01");
      assertThat(proxied.scheduledEvents(T)).isInstanceOf(ImdsResult.Ok.class);
      assertThat(proxied.identity(T)).isInstanceOf(ImdsResult.Ok.class);
      assertThat(proxy.connections()).isZero();
      // Control: a client that honours the JVM's proxy settings does go to the proxy here, so the
      // assertion above can fail.
      java.net.http.HttpClient honouring =
          java.net.http.HttpClient.newBuilder().proxy(java.net.ProxySelector.getDefault()).build();
      try {
        honouring.send(
            java.net.http.HttpRequest.newBuilder(proxied.scheduledEventsUri())
                .header("Metadata", "true")
                .build(),
            java.net.http.HttpResponse.BodyHandlers.discarding());
      } catch (java.io.IOException expected) {
        // the fake proxy answers 502 or hangs up
      }
      assertThat(proxy.connections()).isPositive();
    } finally {
      saved.forEach(
          (k, v) -> {
            if (v == null) {
              System.clearProperty(k);
            } else {
              System.setProperty(k, v);
            }
          });
    }
  }
}
