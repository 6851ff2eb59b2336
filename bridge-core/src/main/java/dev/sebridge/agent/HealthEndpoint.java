package dev.sebridge.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sebridge.concurrent.DaemonThreads;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code /healthz} (the process is alive), {@code /readyz} (IMDS answered recently, the identity is
 * known, every sink and the command source work) and {@code /metrics} (Prometheus text) on {@code
 * http.bind-address:http.port}, localhost by default.
 */
final class HealthEndpoint implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final ExecutorService executor;

  HealthEndpoint(
      String bindAddress,
      int port,
      Supplier<List<String>> readinessProblems,
      Supplier<String> metrics)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
    executor = Executors.newSingleThreadExecutor(DaemonThreads.named("sebridge-http"));
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> answer(ex, 200, status("UP")));
    server.createContext(
        "/readyz",
        ex -> {
          List<String> problems = readinessProblems.get();
          if (problems.isEmpty()) {
            answer(ex, 200, status("READY"));
          } else {
            ObjectNode body = JSON.createObjectNode().put("status", "NOT_READY");
            problems.forEach(body.putArray("reasons")::add);
            answer(ex, 503, body);
          }
        });
    server.createContext(
        "/metrics",
        ex ->
            answer(
                ex,
                200,
                metrics.get().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "text/plain; version=0.0.4; charset=utf-8"));
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  java.net.InetAddress address() {
    return server.getAddress().getAddress();
  }

  private static ObjectNode status(String status) {
    return JSON.createObjectNode().put("status", status);
  }

  private static void answer(HttpExchange ex, int status, ObjectNode body) throws IOException {
    answer(ex, status, JSON.writeValueAsBytes(body), "application/json");
  }

  private static void answer(HttpExchange ex, int status, byte[] body, String contentType)
      throws IOException {
    try (ex) {
      if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      ex.getResponseHeaders().set("Content-Type", contentType);
      ex.sendResponseHeaders(status, body.length);
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
