package dev.sebridge.fleet.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/** A local Azure endpoint's JSON answer. */
final class JsonAnswer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonAnswer() {}

  static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] b = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, b.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(b);
    }
  }
}
