package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet service's HTTP API (docs/fleet.md, docs/fleet-openapi.yaml). Every {@code /api/} call
 * needs a bearer token: 401 without a valid one, 403 for a reader approving. {@code /healthz} and
 * {@code /readyz} answer without one and say nothing but the status; {@code /metrics} needs one.
 * Handlers only translate: requests to queries of the views, and approvals to audit records.
 */
public final class FleetServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FleetServer.class);
  private static final RequestContract CONTRACT = RequestContract.published();
  private static final Pattern EVENT = Pattern.compile("/api/events/([^/]+)");
  private static final Pattern APPROVE = Pattern.compile("/api/events/([^/]+)/approve");
  private static final Pattern VM = Pattern.compile("/api/vms/([^/]+)");
  private static final Pattern APPROVAL = Pattern.compile("/api/approvals/([^/]+)");

  private final HttpServer server;
  private final ExecutorService executor;
  private final Authenticator auth;
  private final FleetQueries queries;
  private final ApprovalRequests approvals;
  private final Supplier<List<String>> readiness;
  private final Supplier<String> metrics;
  private final List<Route> routes = new ArrayList<>();

  /** An extra route (the web page adds its own); {@code handler} answers or returns false. */
  @FunctionalInterface
  public interface Route {
    boolean handle(HttpExchange ex, String path, Optional<Principal> principal) throws IOException;
  }

  public FleetServer(
      String bindAddress,
      int port,
      Authenticator auth,
      FleetQueries queries,
      ApprovalRequests approvals,
      Supplier<List<String>> readiness,
      Supplier<String> metrics)
      throws IOException {
    this.auth = auth;
    this.queries = queries;
    this.approvals = approvals;
    this.readiness = readiness;
    this.metrics = metrics;
    this.server = HttpServer.create(new InetSocketAddress(bindAddress, port), 64);
    this.executor = Executors.newFixedThreadPool(80, DaemonThreads.named("fleet-http"));
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /** Adds a route tried before the API's own (the web page). */
  public FleetServer route(Route r) {
    routes.add(r);
    return this;
  }

  public FleetServer start() {
    server.start();
    return this;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      // Raw: each path segment is decoded exactly once, by the route that reads it ({@link
      // #segment}), so an encoded slash stays inside its segment.
      String path = ex.getRequestURI().getRawPath();
      if (path.equals("/healthz") || path.equals("/readyz")) {
        health(ex, path);
        return;
      }
      Optional<Principal> principal = principal(ex);
      try {
        for (Route r : routes) {
          if (r.handle(ex, path, principal)) {
            return;
          }
        }
        if (principal.isEmpty()) {
          ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"sebridge-fleet\"");
          json(ex, 401, error("a valid bearer token is required"));
          return;
        }
        api(ex, path, principal.get());
      } catch (ApiException e) {
        ObjectNode error = error(e.getMessage());
        e.fields().forEach(error::put);
        json(ex, e.status(), error);
      } catch (IOException e) {
        LOG.debug("the client of {} {} went away: {}", ex.getRequestMethod(), path, e.toString());
      } catch (RuntimeException e) {
        LOG.error("answering {} {} failed", ex.getRequestMethod(), path, e);
        json(ex, 500, error("internal error"));
      }
    }
  }

  /**
   * {@code /healthz} and {@code /readyz}: GET and HEAD only (405 otherwise), no token, nothing but
   * the status; readiness is computed once per request.
   */
  private void health(HttpExchange ex, String path) throws IOException {
    if (!method(ex).equals("GET")) {
      ex.getResponseHeaders().set("Allow", "GET, HEAD");
      json(ex, 405, error("only GET and HEAD: " + ex.getRequestMethod() + " " + path));
    } else if (path.equals("/healthz")) {
      json(ex, 200, status("UP"));
    } else {
      boolean ready = readiness.get().isEmpty();
      json(ex, ready ? 200 : 503, status(ready ? "READY" : "NOT_READY"));
    }
  }

  /**
   * The method a route matches on: HEAD is answered as GET is, without the body ({@link #send}).
   */
  public static String method(HttpExchange ex) {
    String m = ex.getRequestMethod();
    return m.equals("HEAD") ? "GET" : m;
  }

  private void api(HttpExchange ex, String path, Principal p) throws IOException {
    String method = method(ex);
    Map<String, String> q = query(ex);
    Matcher m;
    if (path.equals("/metrics") && method.equals("GET")) {
      send(
          ex,
          200,
          metrics.get().getBytes(StandardCharsets.UTF_8),
          "text/plain; version=0.0.4; charset=utf-8");
    } else if (path.equals("/api/events") && method.equals("GET")) {
      json(
          ex,
          200,
          queries.events(
              new FleetQueries.EventFilter(
                  q.containsKey("open") ? Boolean.valueOf(q.get("open")) : null,
                  q.get("type"),
                  q.get("zone"),
                  q.get("scaleSet"),
                  q.get("subscription"))));
    } else if ((m = APPROVE.matcher(path)).matches() && method.equals("POST")) {
      JsonNode body = body(ex, "/api/events/{eventId}/approve");
      List<String> vms = null;
      if (body.has("vms")) {
        vms = new ArrayList<>();
        for (JsonNode v : body.get("vms")) {
          vms.add(v.asText());
        }
      }
      ApprovalRequests.Accepted accepted =
          approvals.request(
              segment(m.group(1)),
              vms,
              body.path("reason").asText(null),
              p,
              ex.getRequestHeaders().getFirst("Idempotency-Key"),
              "api",
              body.path("override").asBoolean(false));
      ApprovalRequest r = accepted.request();
      ObjectNode out = JsonSerde.JSON.createObjectNode();
      out.put("requestId", r.requestId());
      out.put("eventId", r.eventId());
      out.put("requestedBy", r.requestedBy());
      var commands = out.putObject("commands");
      r.vmIds().forEach(vm -> commands.put(vm, ApprovalRequest.commandId(r.requestId(), vm)));
      var releases = out.putArray("releases");
      accepted.releases().forEach(releases::add);
      ex.getResponseHeaders().set("Location", "/api/approvals/" + r.requestId());
      json(ex, 202, out);
    } else if ((m = EVENT.matcher(path)).matches() && method.equals("GET")) {
      json(ex, 200, found(queries.event(segment(m.group(1))), "event"));
    } else if (path.equals("/api/vms") && method.equals("GET")) {
      json(ex, 200, queries.vms(q.containsKey("silent") ? Boolean.valueOf(q.get("silent")) : null));
    } else if ((m = VM.matcher(path)).matches() && method.equals("GET")) {
      json(ex, 200, found(queries.vm(segment(m.group(1))), "VM"));
    } else if ((m = APPROVAL.matcher(path)).matches() && method.equals("GET")) {
      json(ex, 200, found(queries.request(segment(m.group(1))), "approval request"));
    } else {
      throw new ApiException(
          path.startsWith("/api/") || path.equals("/metrics") ? 405 : 404,
          "no such route: " + method + " " + path);
    }
  }

  /** The principal of the request's bearer token, if it has a valid one. */
  Optional<Principal> principal(HttpExchange ex) {
    String h = ex.getRequestHeaders().getFirst("Authorization");
    if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    return auth.authenticate(h.substring(7).trim());
  }

  public static <T> T found(Optional<T> o, String what) {
    return o.orElseThrow(() -> new ApiException(404, "no such " + what));
  }

  /**
   * The request's JSON body, checked against what docs/fleet-openapi.yaml says the route accepts
   * ({@link RequestContract}): 400 naming the fields when it does not match.
   *
   * @param template the route as the document names it, e.g. {@code /api/events/{eventId}/approve}
   */
  public static JsonNode body(HttpExchange ex, String template) throws IOException {
    byte[] b = ex.getRequestBody().readNBytes(64 * 1024);
    JsonNode n;
    try {
      n = JsonSerde.JSON.readTree(b);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new ApiException(400, "the body is not JSON");
    }
    if (n == null || !n.isObject()) {
      throw new ApiException(400, "the body must be a JSON object");
    }
    CONTRACT.check(ex.getRequestMethod(), template, n);
    return n;
  }

  static Map<String, String> query(HttpExchange ex) {
    Map<String, String> q = new LinkedHashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String part : raw.split("&")) {
        int eq = part.indexOf('=');
        if (eq > 0) {
          q.put(decode(part.substring(0, eq)), decode(part.substring(eq + 1)));
        }
      }
    }
    return q;
  }

  /** A form field (application/x-www-form-urlencoded: '+' is a space); 400 when malformed. */
  public static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new ApiException(400, "malformed percent-encoding: " + e.getMessage());
    }
  }

  /** A path segment as sent (percent-encoded), decoded once ('+' is a plus); 400 when malformed. */
  public static String segment(String raw) {
    return decode(raw.replace("+", "%2B"));
  }

  private static ObjectNode status(String s) {
    return JsonSerde.JSON.createObjectNode().put("status", s);
  }

  private static ObjectNode error(String message) {
    return JsonSerde.JSON.createObjectNode().put("error", message);
  }

  /** Answers with a JSON body. */
  public static void json(HttpExchange ex, int status, JsonNode body) throws IOException {
    send(ex, status, JsonSerde.JSON.writeValueAsBytes(body), "application/json");
  }

  /** Answers with a body of this type. */
  public static void send(HttpExchange ex, int status, byte[] body, String contentType)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    if (ex.getRequestMethod().equals("HEAD")) {
      // The headers a GET would get, and no body: the length is the GET's, as RFC 9110 allows.
      ex.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
      ex.sendResponseHeaders(status, -1);
      return;
    }
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
