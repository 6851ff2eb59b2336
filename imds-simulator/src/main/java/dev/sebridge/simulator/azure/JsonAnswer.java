package dev.sebridge.simulator.azure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;

/** A local Azure endpoint's JSON answer. */
public final class JsonAnswer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonAnswer() {}

  /** A query parameter of {@code uri}, as sent (not decoded), or null. */
  public static String query(java.net.URI uri, String name) {
    if (uri.getRawQuery() == null) {
      return null;
    }
    for (String p : uri.getRawQuery().split("&")) {
      if (p.startsWith(name + "=")) {
        return p.substring(name.length() + 1);
      }
    }
    return null;
  }

  /** Azure's error body: {@code {"error": {"code": code, "message": code}}}. */
  public static com.fasterxml.jackson.databind.node.ObjectNode error(String code) {
    com.fasterxml.jackson.databind.node.ObjectNode n = JSON.createObjectNode();
    n.putObject("error").put("code", code).put("message", code);
    return n;
  }

  public static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
    byte[] b = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, b.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(b);
    }
  }
}
