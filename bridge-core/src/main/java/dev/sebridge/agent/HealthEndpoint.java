package dev.sebridge.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code /healthz} (the process is alive), {@code /readyz} (IMDS answered recently and every sink
 * is healthy) and {@code /metrics} (Prometheus text) on {@code http.bind-address:http.port},
 * localhost by default.
 */
final class HealthEndpoint implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;

  HealthEndpoint(
      String bindAddress,
      int port,
      Supplier<List<String>> readinessProblems,
      Supplier<String> metrics)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "sebridge-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> answer(ex, 200, "{\"status\":\"UP\"}"));
    server.createContext(
        "/readyz",
        ex -> {
          List<String> problems = readinessProblems.get();
          if (problems.isEmpty()) {
            answer(ex, 200, "{\"status\":\"READY\"}");
          } else {
            StringBuilder b = new StringBuilder("{\"status\":\"NOT_READY\",\"reasons\":[");
            for (int i = 0; i < problems.size(); i++) {
              b.append(i == 0 ? "" : ",")
                  .append('"')
                  .append(problems.get(i).replace("\"", "'"))
                  .append('"');
            }
            answer(ex, 503, b.append("]}").toString());
          }
        });
    server.createContext(
        "/metrics",
        ex -> answer(ex, 200, metrics.get(), "text/plain; version=0.0.4; charset=utf-8"));
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  java.net.InetAddress address() {
    return server.getAddress().getAddress();
  }

  private static void answer(HttpExchange ex, int status, String body) throws IOException {
    answer(ex, status, body, "application/json");
  }

  private static void answer(HttpExchange ex, int status, String body, String contentType)
      throws IOException {
    try (ex) {
      if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", contentType);
      ex.sendResponseHeaders(status, b.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
