package dev.sebridge.simulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * The simulator's control API, for scripting it over HTTP:
 *
 * <ul>
 *   <li>{@code GET /control/state}: events, incarnation, StartRequests received, request counts
 *   <li>{@code POST /control/events} with an {@link EventSpec} as JSON: creates an event
 *   <li>{@code POST /control/events/{id}/start|complete|cancel}
 *   <li>{@code POST /control/events/{id}/resources} with {@code {"resources": ["vm-0", "vm-1"]}}:
 *       Azure changes the VMs the event lists
 *   <li>{@code POST /control/faults?times=N} with a {@link Fault} as JSON ({@code {"kind":"status",
 *       "status":500}}): queues faults
 *   <li>{@code POST /control/scenario} with a {@link Scenario} as JSON: plays it in the background
 * </ul>
 */
final class SimulatorControlApi {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SimulatorControlApi() {}

  static void handle(ImdsSimulator sim, HttpExchange ex, String path) throws IOException {
    String method = ex.getRequestMethod();
    try {
      if ("GET".equals(method) && path.equals("/state")) {
        ImdsEndpoints.send(ex, 200, state(sim).toString());
      } else if ("POST".equals(method) && path.equals("/events")) {
        EventSpec spec = JSON.readValue(ex.getRequestBody(), EventSpec.class);
        String id = sim.addEvent(spec);
        ImdsEndpoints.send(ex, 201, JSON.createObjectNode().put("EventId", id).toString());
      } else if ("POST".equals(method) && path.startsWith("/events/")) {
        String[] parts = path.split("/");
        if (parts.length != 4) {
          ImdsEndpoints.send(
              ex, 404, "{\"error\":\"use /control/events/{id}/start|complete|cancel|resources\"}");
          return;
        }
        switch (parts[3]) {
          case "resources" -> sim.changeResources(parts[2], resources(ex));
          case "start" -> sim.startEvent(parts[2]);
          case "complete" -> sim.completeEvent(parts[2]);
          case "cancel" -> sim.cancelEvent(parts[2]);
          default -> {
            ImdsEndpoints.send(ex, 404, "{\"error\":\"unknown action " + parts[3] + "\"}");
            return;
          }
        }
        ImdsEndpoints.send(ex, 200, state(sim).toString());
      } else if ("POST".equals(method) && path.equals("/faults")) {
        Fault fault = JSON.readValue(ex.getRequestBody(), Fault.class);
        String times = ImdsEndpoints.query(ex.getRequestURI()).getOrDefault("times", "1");
        sim.injectFault(fault, Integer.parseInt(times));
        ImdsEndpoints.send(ex, 200, "{\"queued\":" + sim.pendingFaults() + "}");
      } else if ("POST".equals(method) && path.equals("/scenario")) {
        Scenario scenario = Scenario.parse(ex.getRequestBody().readAllBytes(), false);
        Thread t = new Thread(() -> scenario.play(sim), "imds-simulator-scenario");
        t.setDaemon(true);
        t.start();
        ImdsEndpoints.send(ex, 202, "{\"steps\":" + scenario.steps().size() + "}");
      } else {
        ImdsEndpoints.send(ex, 404, "{\"error\":\"unknown control path " + path + "\"}");
      }
    } catch (IllegalArgumentException | IllegalStateException | IOException e) {
      ObjectNode err = JSON.createObjectNode().put("error", String.valueOf(e.getMessage()));
      ImdsEndpoints.send(ex, 400, err.toString());
    }
  }

  /** The body's {@code resources}: a list of VM names. */
  private static java.util.List<String> resources(HttpExchange ex) throws IOException {
    com.fasterxml.jackson.databind.JsonNode body = JSON.readTree(ex.getRequestBody());
    com.fasterxml.jackson.databind.JsonNode list = body == null ? null : body.get("resources");
    if (list == null || !list.isArray()) {
      throw new IllegalArgumentException("the body must be {\"resources\": [\"vm-0\", ...]}");
    }
    java.util.List<String> names = new java.util.ArrayList<>();
    for (com.fasterxml.jackson.databind.JsonNode n : list) {
      if (!n.isTextual() || n.asText().isBlank()) {
        throw new IllegalArgumentException("resources must be VM names");
      }
      names.add(n.asText());
    }
    return names;
  }

  static ObjectNode state(ImdsSimulator sim) {
    ObjectNode s = JSON.createObjectNode();
    s.set("document", sim.document(ImdsSimulator.SCHEDULED_EVENTS_API_VERSIONS.get(6)));
    ArrayNode posts = s.putArray("startRequests");
    for (StartRequestRecord r : sim.startRequests()) {
      ObjectNode p = posts.addObject();
      p.put("at", r.at().toString());
      p.put("vm", r.vm());
      p.put("status", r.status());
      ArrayNode ids = p.putArray("eventIds");
      r.eventIds().forEach(ids::add);
    }
    s.put("scheduledEventsGets", sim.scheduledEventsGets());
    s.put("computeGets", sim.computeGets());
    s.put("pendingFaults", sim.pendingFaults());
    return s;
  }
}
