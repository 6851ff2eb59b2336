package dev.sebridge.fleet.api;

import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Jetty server under {@link FleetServer}: one HTTP/1.1 connector with the configured idle
 * timeout and connection cap (idle connections get 2 s at the cap; one client address a sixteenth
 * of it: {@link AddressConnections}), a bounded pool of Jetty's own threads (they parse,
 * authenticate, admit and write; the routes run on FleetServer's pool), headers of at most 16 KiB
 * that must come within a deadline ({@link HeaderDeadline}), no server name, and what Jetty refuses
 * itself (a malformed request line, headers too large) answered as the API's JSON errors. It stops
 * in two steps: {@link #drain} (no request taken from then on, the ones under way answered), then
 * {@link #close}. (Jetty 12's {@code HttpConfiguration.setMinRequestDataRate} is read by its
 * servlet layer only: set here until 2026-11-28, it bounded nothing. BodyReader gives a body its
 * deadline.)
 */
final class JettyServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JettyServer.class);

  /**
   * Bytes a second a request body must come at, at least, beyond the idle timeout's grace
   * (BodyReader reads a body within both; a sign-in is 100 bytes).
   */
  static final long MIN_BODY_RATE = 1024;

  /** What a request gets while the server stops. */
  static final String STOPPING = "the service is stopping; try again (another instance answers)";

  /** The headers' deadline (the connection test). */
  HeaderDeadline headers() {
    return headers;
  }

  private final Server server;
  private final ServerConnector connector;
  private final AddressConnections addresses;
  private final HeaderDeadline headers;
  private final GracefulHandler requests;

  JettyServer(String bindAddress, int port, HttpLimits limits, Consumer<HttpCall> admit) {
    QueuedThreadPool threads =
        new QueuedThreadPool(32, 4, 60_000, new BlockingArrayQueue<>(64, 64, 8192));
    threads.setName("fleet-http");
    threads.setDaemon(true);
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setRequestHeaderSize(16 * 1024);
    // Path segments are decoded once, by the route that reads them (FleetServer.segment): an
    // encoded slash stays inside its segment instead of being refused as ambiguous.
    http.setUriCompliance(
        UriCompliance.DEFAULT.with(
            "sebridge",
            UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
            UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING));
    this.connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setHost(bindAddress);
    connector.setPort(port);
    connector.setIdleTimeout(limits.idleTimeout().toMillis());
    // While it drains, a connection keeps its idle timeout: Jetty's default (a second) would fail
    // a request still being admitted, or an answer written to a slow reader, that was taken before.
    connector.setShutdownIdleTimeout(limits.idleTimeout().toMillis());
    server.addConnector(connector);
    this.headers = new HeaderDeadline(connector, HeaderDeadline.of(limits.idleTimeout()));
    NetworkConnectionLimit cap = new NetworkConnectionLimit(limits.maxConnections(), connector);
    // At the cap, idle connections are closed after 2 s instead of the idle timeout.
    cap.setEndPointIdleTimeout(2_000);
    server.addBean(cap);
    // And one client address a sixteenth of it (a trusted proxy exempt).
    this.addresses =
        new AddressConnections(
            AddressConnections.of(limits.maxConnections()),
            limits.trustedProxies(),
            (task, delay) ->
                connector
                    .getScheduler()
                    .schedule(task, delay.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
    connector.addEventListener(addresses); // (a listener of the connector's: told of each one)
    server.setErrorHandler(JettyServer::jettyError);
    // Blocking: admission may authenticate (a JWKS fetch), so it never runs on the selector.
    Handler.Abstract admission =
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            admit.accept(new HttpCall(request, response, callback));
            return true;
          }
        };
    // Counts the requests under way (until each is answered), and answers 503 once draining.
    this.requests =
        new GracefulHandler(admission) {
          @Override
          protected void handleShutdownRejection(
              Request request, Response response, Callback callback) {
            response.setStatus(503);
            response.getHeaders().put("Retry-After", "1");
            // JettyServer's: inside the handler, a bare STOPPING is Jetty's life-cycle state
            // ("STOPPING", inherited from AbstractLifeCycle), which this answer said before.
            writeError(response, callback, JettyServer.STOPPING);
          }
        };
    server.setHandler(requests);
  }

  void start() throws IOException {
    try {
      server.start();
      headers.start();
    } catch (Exception e) {
      close();
      throw new IOException("cannot listen: " + e.getMessage(), e);
    }
  }

  int port() {
    return connector.getLocalPort();
  }

  /** What Jetty itself refuses: a JSON error, as the API's. */
  private static boolean jettyError(Request request, Response response, Callback callback) {
    Object message = request.getAttribute(ErrorHandler.ERROR_MESSAGE);
    writeError(response, callback, message == null ? "refused" : message.toString());
    return true;
  }

  private static void writeError(Response response, Callback callback, String message) {
    response.getHeaders().put("Content-Type", "application/json");
    response.getHeaders().put("Cache-Control", "no-store");
    try {
      byte[] body = JsonSerde.JSON.writeValueAsBytes(FleetServer.error(message));
      response.write(true, ByteBuffer.wrap(body), callback);
    } catch (IOException e) {
      callback.failed(e);
    }
  }

  /**
   * Stops taking requests: the listening socket closes (a new connection is refused, and a load
   * balancer tries another instance), a request that comes on a connection already open is answered
   * 503 with {@code Retry-After: 1}, and an answer given from now on closes its connection. The
   * connections keep their idle timeout meanwhile (see the constructor).
   *
   * @return completes once every request taken before is answered (its answer written, or its
   *     client gone)
   */
  CompletableFuture<Void> drain() {
    CompletableFuture<Void> answered = requests.shutdown();
    connector.shutdown();
    return answered;
  }

  /** Requests taken and not yet answered (tests). */
  long underWay() {
    return requests.getCurrentRequestCount();
  }

  /** Stops at once: what {@link #drain} left open is closed. */
  @Override
  public void close() {
    headers.close();
    addresses.due(); // what it closed since its last line: written before the scheduler stops
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("stopping the HTTP server: {}", e.toString());
    }
  }
}
