package dev.sebridge.simulator.azure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local HTTPS endpoint speaking Azure Resource Graph's query API as the SDK calls it ({@code POST
 * /providers/Microsoft.ResourceGraph/resources?api-version=2021-03-01}, a bearer token, {@code
 * $top}, {@code $skipToken} and {@code resultFormat: objectArray}), over a list of VMs. It runs no
 * KQL: it answers the {@code resources} table with the VMs and {@code computeresources} with the
 * scale-set instances, and applies a {@code tags['name']) =~ 'value'} filter. It can answer 429
 * (with {@code x-ms-retry-after-ms}), a page that is not a list, or a truncated answer with no
 * token.
 */
public final class ResourceGraphEndpoint implements AutoCloseable {
  public static final String TOKEN = "resource-graph-test-access-token";
  public static final String PATH = "/providers/Microsoft.ResourceGraph/resources";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TAG = Pattern.compile("tags\\['([^']+)'\\]\\) =~ '([^']*)'");

  /** One VM row; {@code scaleSetInstance}: a uniform scale set's (computeresources). */
  public record Row(ObjectNode row, boolean scaleSetInstance) {}

  /** One call: its query, subscriptions, skip token, whether it carried the token, the answer. */
  public record Call(
      String query, List<String> subscriptions, String skipToken, boolean authorized, int status) {}

  /** What the next answers are, instead of the rows. */
  public enum Fault {
    THROTTLED,
    NOT_A_LIST,
    TRUNCATED_WITHOUT_TOKEN
  }

  private final HttpsServer server;
  private final List<Row> rows = new CopyOnWriteArrayList<>();
  private final List<ObjectNode> maintenance = new CopyOnWriteArrayList<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile Fault fault;
  private final AtomicInteger faults = new AtomicInteger();
  private volatile int pageSize = 1000;

  public ResourceGraphEndpoint() throws IOException {
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setHttpsConfigurator(new HttpsConfigurator(LoopbackTls.get().serverContext()));
    server.createContext("/", this::handle);
    server.start();
  }

  /** Azure Resource Manager here: {@code https://127.0.0.1:<port>}. */
  public URI endpoint() {
    return URI.create("https://127.0.0.1:" + server.getAddress().getPort());
  }

  /** A VM as Resource Graph lists it (the projection's columns). */
  public static ObjectNode vm(
      String vmId, String name, String zone, String scaleSet, Map<String, String> tags) {
    ObjectNode n = JSON.createObjectNode();
    String sub = "00000000-0000-0000-0000-000000000000";
    n.put(
        "id",
        "/subscriptions/"
            + sub
            + "/resourceGroups/fleet-rg/providers/Microsoft.Compute/"
            + (scaleSet == null
                ? "virtualMachines/" + name
                : "virtualMachineScaleSets/" + scaleSet + "/virtualMachines/" + name));
    n.put("name", name);
    n.put("vmId", vmId);
    n.put("subscriptionId", sub);
    n.put("resourceGroup", "fleet-rg");
    n.put("location", "westeurope");
    n.put("zone", zone == null ? "" : zone);
    n.put("scaleSet", scaleSet == null ? "" : scaleSet);
    n.put("availabilitySet", "");
    ObjectNode t = n.putObject("tags");
    tags.forEach(t::put);
    return n;
  }

  public void add(ObjectNode row, boolean scaleSetInstance) {
    rows.add(new Row(row, scaleSetInstance));
  }

  /** A row of {@code maintenanceresources} (a scheduled event, as Azure keeps it). */
  public void addMaintenance(ObjectNode row) {
    maintenance.add(row);
  }

  /**
   * The row of a scheduled event (by its {@code id}), in the place of the one it had (a page's
   * offsets stay where they were).
   */
  public synchronized void putMaintenance(ObjectNode row) {
    String id = row.path("id").asText();
    for (int i = 0; i < maintenance.size(); i++) {
      if (maintenance.get(i).path("id").asText().equalsIgnoreCase(id)) {
        maintenance.set(i, row); // one write: a reader sees the old row or the new one
        return;
      }
    }
    maintenance.add(row);
  }

  /** Drops the row of a scheduled event (by its {@code id}). */
  public void removeMaintenance(String id) {
    maintenance.removeIf(r -> r.path("id").asText().equalsIgnoreCase(id));
  }

  public void clear() {
    rows.clear();
    maintenance.clear();
  }

  public void pageSize(int n) {
    pageSize = n;
  }

  /** The next {@code times} answers are this fault. */
  public void fault(Fault f, int times) {
    fault = f;
    faults.set(times);
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      boolean authorized =
          ("Bearer " + TOKEN).equals(ex.getRequestHeaders().getFirst("Authorization"));
      if (!authorized) {
        // before reading a body: an unauthenticated client gets nothing more
        record(new Call(null, List.of(), null, false, 401));
        send(ex, 401, error("AuthenticationFailed"));
        return;
      }
      JsonNode req;
      try {
        req = JSON.readTree(ex.getRequestBody().readAllBytes());
      } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
        send(ex, 400, error("InvalidRequestContent"));
        return;
      }
      String query = req.path("query").asText();
      List<String> subs = new ArrayList<>();
      req.path("subscriptions").forEach(s -> subs.add(s.asText()));
      String token = req.path("options").path("$skipToken").asText(null);
      if (!authorized
          || !ex.getRequestMethod().equals("POST")
          || !ex.getRequestURI().getPath().equals(PATH)
          || !"2021-03-01".equals(query(ex.getRequestURI(), "api-version"))) {
        int status = authorized ? 404 : 401;
        record(new Call(query, subs, token, authorized, status));
        send(ex, status, error(authorized ? "NotFound" : "AuthenticationFailed"));
        return;
      }
      Fault f = faults.getAndDecrement() > 0 ? fault : null;
      if (f == Fault.THROTTLED) {
        record(new Call(query, subs, token, true, 429));
        ex.getResponseHeaders().set("x-ms-retry-after-ms", "20");
        send(ex, 429, error("RateLimiting"));
        return;
      }
      record(new Call(query, subs, token, true, 200));
      boolean scaleSets = query.startsWith("computeresources");
      Matcher tag = TAG.matcher(query);
      List<ObjectNode> matching = new ArrayList<>();
      if (query.startsWith("maintenanceresources")) {
        matching.addAll(maintenance);
      }
      for (Row r : query.startsWith("maintenanceresources") ? List.<Row>of() : rows) {
        if (r.scaleSetInstance() == scaleSets
            && (!tag.find(0)
                || r.row()
                    .path("tags")
                    .path(tag.group(1))
                    .asText()
                    .equalsIgnoreCase(tag.group(2)))) {
          matching.add(r.row());
        }
      }
      int from =
          token == null
              ? 0
              : Integer.parseInt(
                  new String(Base64.getDecoder().decode(token), StandardCharsets.UTF_8));
      int top = Math.min(pageSize, req.path("options").path("$top").asInt(1000));
      int to = Math.min(matching.size(), from + top);
      ObjectNode out = JSON.createObjectNode();
      out.put("totalRecords", matching.size());
      out.put("count", to - from);
      out.put("resultTruncated", f == Fault.TRUNCATED_WITHOUT_TOKEN ? "true" : "false");
      if (to < matching.size() && f != Fault.TRUNCATED_WITHOUT_TOKEN) {
        out.put(
            "$skipToken",
            Base64.getEncoder()
                .encodeToString(Integer.toString(to).getBytes(StandardCharsets.UTF_8)));
      }
      if (f == Fault.NOT_A_LIST) {
        out.putObject("data").put("columns", "rows");
      } else {
        ArrayNode data = out.putArray("data");
        matching.subList(from, to).forEach(data::add);
      }
      out.putArray("facets");
      send(ex, 200, out);
    } catch (RuntimeException e) {
      send(ex, 500, error(e.toString()));
    }
  }

  /** The newest calls only: a long run (the demo's follow mode) keeps this many. */
  static final int CALLS_KEPT = 1000;

  private void record(Call c) {
    calls.add(c);
    while (calls.size() > CALLS_KEPT) {
      calls.remove(0);
    }
  }

  private static String query(URI uri, String name) {
    return JsonAnswer.query(uri, name);
  }

  private static ObjectNode error(String code) {
    return JsonAnswer.error(code);
  }

  private static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
    JsonAnswer.send(ex, status, body);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
