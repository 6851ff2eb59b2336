package dev.sebridge.fleet.api;

import static dev.sebridge.fleet.api.RawHttp.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.auth.StaticTokens;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the server stops, with real sockets: no request is taken from the moment it begins (new
 * connections refused), and the requests taken before are answered, not cut, whether they finish in
 * time, are interrupted at the end of the drain, still wait for a thread, or are still sending
 * their body. Before 2026-11-29 the connections closed first, and every one of them lost its
 * answer.
 */
class FleetServerStopTest {
  static final String READER = "reader-token-0123456789ab";

  /** A route under way has begun. */
  final CountDownLatch entered = new CountDownLatch(1);

  /** Lets {@code /api/block} answer. */
  final CountDownLatch release = new CountDownLatch(1);

  final List<Socket> sockets = new ArrayList<>();
  FleetServer server;
  int port;

  private FleetServer serve(HttpLimits limits) throws IOException {
    FleetServer started = server(limits);
    port = started.port();
    return started;
  }

  private FleetServer server(HttpLimits limits) throws IOException {
    return new FleetServer(
            "127.0.0.1",
            0,
            limits,
            StaticTokens.of(Map.of(READER, new Principal("dashboard", Principal.Role.READER))),
            new RateLimits(3),
            List::of)
        .route(
            new Route() {
              @Override
              public Route.Admission admit(HttpCall call, String path, Optional<Principal> p) {
                return path.equals("/ui/login")
                    ? Route.Admission.ADMITTED
                    : Route.Admission.NOT_MINE;
              }

              @Override
              public boolean handle(HttpCall call, String path, Optional<Principal> p)
                  throws IOException {
                return route(call, path);
              }
            })
        .start();
  }

  private boolean route(HttpCall call, String path) throws IOException {
    if (path.equals("/api/block") || path.equals("/api/stuck")) {
      entered.countDown();
      try {
        // /api/stuck waits longer than any drain, as a write whose broker does not answer.
        release.await(path.equals("/api/block") ? 30 : 60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        // As a write interrupted while it waits for the broker (Audited.write): its state unknown.
        call.json(503, FleetServer.error("interrupted; it may still take effect"));
        return true;
      }
    }
    call.send(
        200, ("{\"path\":\"" + path + "\"}").getBytes(StandardCharsets.UTF_8), "application/json");
    return true;
  }

  @AfterEach
  void stop() throws IOException {
    release.countDown();
    for (Socket s : sockets) {
      s.close();
    }
    server.close();
  }

  /**
   * A request under way when the server begins to stop gets its answer: from the moment the stop
   * begins, new connections are refused, and the request answers once its route does (here when the
   * test lets it, within the drain), its connection closed after it.
   */
  @Test
  void aRequestUnderWayIsAnsweredWhileTheServerStops() throws Exception {
    server = serve(HttpLimits.defaults());
    Socket s = get("/api/block");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    // On a thread of its own: the common pool may be busy with other tests.
    CompletableFuture<Void> closing = new CompletableFuture<>();
    Thread closer =
        new Thread(
            () -> {
              server.close();
              closing.complete(null);
            });
    closer.start();
    await().atMost(Duration.ofSeconds(10)).until(this::refused);
    assertThat(closing).as("the stop waits for the request").isNotDone();
    assertThat(server.underWay()).isEqualTo(1);

    release.countDown();
    String answer = readAll(s);
    assertThat(answer).startsWith("HTTP/1.1 200").contains("{\"path\":\"/api/block\"}");
    assertThat(answer).containsIgnoringCase("connection: close");
    closing.get(10, TimeUnit.SECONDS);
  }

  /**
   * A route still running when the drain ends is interrupted and answers as a write does then (503,
   * its state unknown); a request still waiting for a thread never runs and is answered 503 that
   * the service is stopping. Neither is cut without an answer.
   */
  @Test
  void atTheEndOfTheDrainARouteIsInterruptedAndAWaitingOneAnswered() throws Exception {
    server = serve(HttpLimits.defaults().withThreads(1, 4));
    Socket stuck = get("/api/stuck");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    Socket waiting = get("/api/events");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.apiWaiting() == 1);

    long t0 = System.nanoTime();
    server.close(Duration.ofMillis(300));
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .as("the drain, not the stuck route, bounds the stop")
        .isLessThan(Duration.ofSeconds(5));

    assertThat(readAll(stuck)).startsWith("HTTP/1.1 503").contains("may still take effect");
    String answer = readAll(waiting);
    assertThat(answer).startsWith("HTTP/1.1 503").contains(JettyServer.STOPPING);
    assertThat(answer).containsIgnoringCase("retry-after: 1");
  }

  /**
   * A body still coming when the server stops is answered 503 at once: a drip-fed body does not
   * hold the stop until its deadline (here 31 s), and is never dispatched.
   */
  @Test
  void aBodyStillComingIsAnswered503WhenTheServerStops() throws Exception {
    server = serve(HttpLimits.defaults());
    Socket s =
        open(
            "POST /ui/login HTTP/1.1\r\nHost: x\r\nContent-Type:"
                + " application/x-www-form-urlencoded\r\nContent-Length: 1024\r\n\r\nt");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.bodiesPending() == 1);

    long t0 = System.nanoTime();
    server.close();
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .as("not the body's deadline")
        .isLessThan(Duration.ofSeconds(10));
    String answer = readAll(s);
    assertThat(answer).startsWith("HTTP/1.1 503").contains(JettyServer.STOPPING);
    assertThat(server.bodiesPending()).isZero();
  }

  /**
   * A client that kept its connection open (keep-alive, as a browser or a load balancer does) and
   * sends a request on it once the stop began gets 503 at once, as JSON, with {@code Retry-After:
   * 1} (Jetty's {@code GracefulHandler}, its refusal made the API's error), not a request taken
   * that the drain would then cut, nor an HTML page: the answer a client retries elsewhere.
   */
  @Test
  void aRequestOnAnOpenConnectionOnceTheStopBeganIs503WithRetryAfter() throws Exception {
    server = serve(HttpLimits.defaults());
    Socket kept = get("/api/first");
    assertThat(readAll(kept)).startsWith("HTTP/1.1 200"); // and the connection stays open
    Socket held = get("/api/block"); // keeps the drain going while the test asks
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer = new Thread(server::close);
    closer.start();
    await().atMost(Duration.ofSeconds(10)).until(this::refused);

    kept.getOutputStream()
        .write(
            ("GET /api/second HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + READER + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    kept.getOutputStream().flush();
    String answer = readAll(kept);
    assertThat(answer)
        .startsWith("HTTP/1.1 503")
        .containsIgnoringCase("Retry-After: 1")
        .containsIgnoringCase("Content-Type: application/json")
        .contains("{\"error\":\"" + JettyServer.STOPPING + "\"}");
    // Refused, not taken: only the request taken before is under way (the refusal's own count
    // ends with its answer's write, which may finish just after the client read it).
    await().atMost(Duration.ofSeconds(10)).until(() -> server.underWay() == 1);

    release.countDown();
    assertThat(readAll(held)).startsWith("HTTP/1.1 200");
    closer.join(10_000);
  }

  /** Whether a new connection is refused (the listening socket closed). */
  private boolean refused() throws IOException {
    try (Socket probe = new Socket("127.0.0.1", port)) {
      return false;
    } catch (ConnectException e) {
      return true;
    }
  }

  private Socket get(String path) throws IOException {
    return open(
        "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + READER + "\r\n\r\n");
  }

  private Socket open(String request) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    sockets.add(s);
    s.setSoTimeout(15_000);
    s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }
}
