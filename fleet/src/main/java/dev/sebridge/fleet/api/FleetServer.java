package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet service's HTTP server (docs/fleet.md, "The HTTP server"; the API in
 * docs/fleet-openapi.yaml), on Jetty. In this order, and nothing is read before its step:
 *
 * <ol>
 *   <li>{@code /healthz} and {@code /readyz} are answered on Jetty's own threads: they never wait
 *       behind API work.
 *   <li>The request's principal is found: an API call's by its bearer token (without a valid one,
 *       401 at once), the page's by its session cookie ({@link #SESSION_COOKIE}); tokens that do
 *       not authenticate are limited per address ({@link BearerGate}). A request that carries a
 *       body (any method but GET and HEAD) is admitted before its body is read, or refused: over
 *       {@link #MAX_BODY} (413), a method the path does not take (405, or 404 for no such path), a
 *       reader (403), its pool's threads and queue all taken (503: no write permit spent), over its
 *       principal's write rate (429); the page admits its own ({@link Route#admit}); a body nobody
 *       admits is never read (404).
 *   <li>The body is read without holding a thread, within the idle timeout and at {@link
 *       JettyServer#MIN_BODY_RATE} at least ({@link BodyReader}).
 *   <li>The routes run on a bounded pool ({@link RoutePools}; {@link HttpLimits#threads()}, {@link
 *       HttpLimits#queue()}), the API's and the page's each their own; past it, 503 with
 *       Retry-After. A request without a principal (the sign-in form, its assets, a sign-in, a
 *       redirect or 401 to it) runs on a pool of its own, an eighth of that size ({@link
 *       HttpLimits#anonymousThreads()}): however many clients nobody signed in send, they never
 *       take a thread or a place in the queue from the API or a signed-in page.
 * </ol>
 */
public final class FleetServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FleetServer.class);

  /** The largest request body taken (every documented body is well under 4 KiB). */
  public static final int MAX_BODY = 64 * 1024;

  /** How long the requests under way get to be answered when the server stops. */
  static final Duration DRAIN = Duration.ofSeconds(5);

  /** The page's session cookie: the same token as the API's bearer ({@code web.WebSession}). */
  public static final String SESSION_COOKIE = "sebridge_fleet";

  /**
   * The page's sign-in form and its POST: never a principal, the session cookie not looked at
   * (signing in again works from an address whose failing tokens are spent, within the sign-in's
   * own limit).
   */
  public static final String SIGN_IN = "/ui/login";

  private final JettyServer jetty;
  private final RoutePools pools;
  private final BearerGate bearer;
  private final Readiness readiness;
  private final RateLimits writes;
  private final BodyReader bodies;
  private final RouteGroups routes = new RouteGroups();
  private final AtomicBoolean closed = new AtomicBoolean();

  public FleetServer(
      String bindAddress,
      int port,
      HttpLimits limits,
      Authenticator auth,
      RateLimits writes,
      Supplier<List<String>> readiness) {
    this.bearer = new BearerGate(auth, limits.trustedProxies());
    this.readiness = new Readiness(readiness);
    this.writes = writes;
    this.bodies = new BodyReader(limits.idleTimeout());
    this.jetty = new JettyServer(bindAddress, port, limits, this::admit);
    this.pools = new RoutePools(limits);
  }

  /**
   * The authenticator the page's sign-in form uses: a token that signs in is known here from then
   * on ({@link BearerGate#KNOWN_FOR}), so its session cookie passes an address whose failing tokens
   * are spent.
   */
  public Authenticator signIns() {
    return bearer.signIns();
  }

  /** Adds a group of routes, tried in the order added. */
  public FleetServer route(Route r) {
    routes.add(r);
    return this;
  }

  public FleetServer start() throws IOException {
    try {
      readiness.start();
      jetty.start();
    } catch (IOException e) {
      pools.shutdownNow();
      readiness.close();
      throw e;
    }
    return this;
  }

  public int port() {
    return jetty.port();
  }

  /** The headers' deadline (the connection test). */
  HeaderDeadline headerDeadline() {
    return jetty.headers();
  }

  private void admit(HttpCall call) {
    String path = call.rawPath();
    try {
      if (path.equals("/healthz") || path.equals("/readyz")) {
        health(call, path);
        return;
      }
      boolean api = api(path);
      Optional<Principal> principal =
          api
              ? bearer.bearer(call)
              : path.equals(SIGN_IN) ? Optional.empty() : bearer.session(call);
      if (api && principal.isEmpty()) {
        RouteGroups.bearer(call, principal); // 401 before anything else: no pool thread, no body
      }
      String m = call.rawMethod();
      if (m.equals("GET") || m.equals("HEAD")) {
        dispatch(call, path, principal);
        return;
      }
      if (call.declaredLength() > MAX_BODY) {
        throw new ApiException(413, "a body of at most " + MAX_BODY + " bytes");
      }
      if (pools.full(RoutePools.Pool.of(api, principal.isPresent()))) {
        // Before its body is read and before a write permit is taken (the page's admission and
        // the API's below take one): a write to a server that cannot run it spends nothing.
        call.header("Retry-After", "1");
        throw new ApiException(503, "too many requests at once; try again");
      }
      Route.Admission a = routes.admit(call, path, principal);
      if (a == Route.Admission.REFUSED) {
        return;
      } else if (a == Route.Admission.ADMITTED) {
        readBody(call, path, principal);
        return;
      }
      if (!api) {
        throw new ApiException(404, "no such route: " + m + " " + path);
      }
      if (!ApiInput.takes(path, m)) {
        // 404 or 405 with Allow, before the role and the write rate: there is nothing to refuse.
        throw ApiInput.noRoute(call, path);
      }
      Principal p = principal.get();
      if (!p.role().mayApprove()) {
        throw new ApiException(403, p.name() + " may read, not approve");
      }
      if (!writes.take(p.id())) {
        call.header("Retry-After", "60");
        throw new ApiException(429, p.name() + " sent more writes this minute than allowed");
      }
      readBody(call, path, principal);
    } catch (ApiException e) {
      routes.error(call, e);
    } catch (IOException | RuntimeException e) {
      LOG.error("admitting {} {} failed", call.rawMethod(), path, e);
      routes.error(call, new ApiException(500, "internal error"));
    }
  }

  /** Reads the body without holding a thread ({@link BodyReader}), then dispatches. */
  private void readBody(HttpCall call, String path, Optional<Principal> principal) {
    bodies.read(call, c -> dispatch(c, path, principal), routes::error);
  }

  private void dispatch(HttpCall call, String path, Optional<Principal> principal) {
    // From here the request is ours: Jetty's idle timeout no longer fails it while it waits for a
    // thread or for the broker (the routes have their own deadlines); a live stream's still does.
    call.request().addIdleTimeoutListener(t -> call.streaming());
    try {
      pools.execute(
          RoutePools.Pool.of(api(path), principal.isPresent()),
          call,
          () -> routes.answer(call, path, principal));
    } catch (RejectedExecutionException e) {
      call.header("Retry-After", "1");
      routes.error(
          call,
          new ApiException(
              503, pools.closed() ? JettyServer.STOPPING : "too many requests at once; try again"));
    }
  }

  /**
   * Whether a path is the API's (a bearer token's, JSON answers): {@code /api/}, {@code /metrics}.
   */
  static boolean api(String path) {
    return path.startsWith("/api/") || path.equals("/metrics");
  }

  /**
   * {@code /healthz} and {@code /readyz}: GET and HEAD only (405 otherwise), no token, nothing but
   * the status; readiness is computed once per request.
   */
  private void health(HttpCall call, String path) throws IOException {
    if (!call.method().equals("GET")) {
      call.header("Allow", "GET, HEAD");
      throw new ApiException(405, "only GET and HEAD: " + call.rawMethod() + " " + path);
    } else if (path.equals("/healthz")) {
      call.json(200, status("UP"));
    } else {
      boolean ready = readiness.ready();
      call.json(ready ? 200 : 503, status(ready ? "READY" : "NOT_READY"));
    }
  }

  private static ObjectNode status(String s) {
    return JsonSerde.JSON.createObjectNode().put("status", s);
  }

  static ObjectNode error(String message) {
    return JsonSerde.JSON.createObjectNode().put("error", message);
  }

  /** Requests without a principal waiting for a thread (tests). */
  int anonymousWaiting() {
    return pools.waiting(RoutePools.Pool.ANONYMOUS);
  }

  /** Signed-in page requests waiting for a thread (the limits test). */
  int pageWaiting() {
    return pools.waiting(RoutePools.Pool.PAGE);
  }

  /** Signed-in API requests waiting for a thread (the limits test). */
  int apiWaiting() {
    return pools.waiting(RoutePools.Pool.API);
  }

  /**
   * Stops: from here no request is taken ({@link JettyServer#drain}: new connections refused, a
   * request on an open one answered 503), the bodies still coming are answered 503, and the
   * requests taken before get up to {@link #DRAIN} to be answered (a write waiting for the broker
   * past it is interrupted and answers 503 with its state unknown); then the connections close.
   * Before 2026-11-29 the connections closed first: a request under way, a write among them, lost
   * its answer.
   */
  @Override
  public void close() {
    close(DRAIN);
  }

  void close(Duration drain) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    CompletableFuture<Void> answered = jetty.drain();
    bodies.stop();
    for (HttpCall never : pools.close(drain)) {
      never.header("Retry-After", "1");
      routes.error(never, new ApiException(503, JettyServer.STOPPING));
    }
    try {
      // The answers given go out (a second at most: a client that does not read them is cut).
      answered.get(1, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      LOG.info("{} requests were not answered in time; their connections close", jetty.underWay());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    jetty.close();
    readiness.close();
  }

  /** Requests taken and not yet answered (tests). */
  long underWay() {
    return jetty.underWay();
  }

  /** Bodies being read (tests). */
  int bodiesPending() {
    return bodies.pending();
  }
}
