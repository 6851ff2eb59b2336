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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local HTTPS endpoint speaking Azure's Maintenance API for scheduled events as the fleet calls
 * it: {@code POST {scheduled event id}/acknowledge?api-version=...} (no body, {@code {"value":
 * "Successfully Approved"}}) and the batch form {@code POST
 * {parent}/providers/Microsoft.Maintenance/scheduledevents} with {@code {"value": [eventIds]}},
 * which answers 207 with a result per event when some are not known. A bearer token is required.
 *
 * <p>It knows the scheduled events {@link #schedule}d on it. Acknowledging one starts it for every
 * VM it lists, as Azure does: once per event, the {@code onStart} hook is told (a test delivers
 * Azure's "Started" and starts the same event at IMDS from there). It can answer 429 (with {@code
 * Retry-After}), 500 or 403 for the next calls, and refuse the batch form outright (an API version
 * without it).
 */
public final class MaintenanceEndpoint implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ONE =
      Pattern.compile(
          "(?i)(/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\\.Compute/[^/]+/[^/]+)"
              + "/providers/Microsoft\\.Maintenance/scheduledevents/([^/]+)/acknowledge");
  private static final Pattern EVENT_ID =
      Pattern.compile("(?i)(.*)/providers/Microsoft\\.Maintenance/scheduledevents/([^/]+)$");
  private static final Pattern BATCH =
      Pattern.compile(
          "(?i)(/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\\.Compute/[^/]+/[^/]+)"
              + "/providers/Microsoft\\.Maintenance/scheduledevents");

  /** One call: its path, whether it carried the token, the event ids it named, its answer. */
  public record Call(String path, boolean authorized, List<String> eventIds, int status) {}

  /** What the next answers are. */
  public enum Fault {
    THROTTLED,
    SERVER_ERROR,
    FORBIDDEN,
    /** 202, no body: taken, not done. */
    ACCEPTED
  }

  private final HttpsServer server;
  private final String token;
  // Scheduled events by lower-case id: the parent resource (lower case) each is under.
  private final Map<String, String> events = new ConcurrentHashMap<>();
  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile Fault fault;
  private final AtomicInteger faults = new AtomicInteger();
  private volatile boolean batchRefused;
  private volatile int retryAfterSeconds;
  private volatile Consumer<String> onStart = id -> {};

  public MaintenanceEndpoint() throws IOException {
    this(ResourceGraphEndpoint.TOKEN);
  }

  public MaintenanceEndpoint(String token) throws IOException {
    this.token = token;
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setHttpsConfigurator(new HttpsConfigurator(LoopbackTls.get().serverContext()));
    server.createContext("/", this::handle);
    server.start();
  }

  /** Azure Resource Manager here: {@code https://127.0.0.1:<port>}. */
  public URI endpoint() {
    return URI.create("https://127.0.0.1:" + server.getAddress().getPort());
  }

  /** The ARM id of scheduled event {@code eventId} on VM {@code vmName}. */
  public static String vmEventId(String vmName, String eventId) {
    return "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/fleet-rg/providers/"
        + "Microsoft.Compute/virtualMachines/"
        + vmName
        + "/providers/Microsoft.Maintenance/scheduledevents/"
        + eventId;
  }

  /** A scheduled event Azure knows (by its ARM id): it may be acknowledged. */
  public void schedule(String resourceId) {
    Matcher m = EVENT_ID.matcher(resourceId);
    if (!m.matches()) {
      throw new IllegalArgumentException(resourceId);
    }
    events.put(m.group(2).toLowerCase(Locale.ROOT), m.group(1).toLowerCase(Locale.ROOT));
  }

  /** Told each event's id (as scheduled) the first time it is acknowledged: it starts. */
  public void onStart(Consumer<String> hook) {
    this.onStart = hook;
  }

  /** The next {@code times} calls are answered with this fault. */
  public void fault(Fault f, int times) {
    fault = f;
    faults.set(times);
  }

  /** The {@code Retry-After} a throttled answer carries (seconds; 0 by default). */
  public void retryAfter(int seconds) {
    retryAfterSeconds = seconds;
  }

  /** Whether the batch form is refused as a whole (400), as an API version without it would. */
  public void refuseBatch(boolean refuse) {
    batchRefused = refuse;
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The events acknowledged, by lower-case id. */
  public Set<String> started() {
    return Set.copyOf(started);
  }

  public void clear() {
    calls.clear();
    started.clear();
    events.clear();
    faults.set(0);
    batchRefused = false;
    retryAfterSeconds = 0;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      boolean authorized =
          ("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"));
      String path = ex.getRequestURI().getPath();
      if (!authorized) {
        // before reading a body: an unauthenticated client gets nothing more
        answer(ex, new Call(path, false, List.of(), 401), error("AuthenticationFailed"));
        return;
      }
      byte[] bytes = ex.getRequestBody().readAllBytes();
      String version = query(ex.getRequestURI(), "api-version");
      Matcher one = ONE.matcher(path);
      Matcher batch = BATCH.matcher(path);
      List<String> ids = new ArrayList<>();
      boolean isOne = one.matches();
      boolean isBatch = !isOne && batch.matches();
      if (isOne) {
        ids.add(one.group(2));
      } else if (isBatch && bytes.length > 0) {
        try {
          JSON.readTree(bytes).path("value").forEach(v -> ids.add(v.asText()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
          answer(ex, new Call(path, true, ids, 400), error("InvalidRequestContent"));
          return;
        }
      }
      if (!ex.getRequestMethod().equals("POST")
          || (!isOne && !isBatch)
          || version == null
          || !version.matches("\\d{4}-\\d{2}-\\d{2}(-preview)?")) {
        answer(ex, new Call(path, true, ids, 404), error("NotFound"));
        return;
      }
      Fault f = faults.getAndDecrement() > 0 ? fault : null;
      if (f == Fault.THROTTLED) {
        ex.getResponseHeaders().set("Retry-After", Integer.toString(retryAfterSeconds));
        answer(ex, new Call(path, true, ids, 429), error("TooManyRequests"));
        return;
      }
      if (f == Fault.SERVER_ERROR) {
        answer(ex, new Call(path, true, ids, 500), error("InternalServerError"));
        return;
      }
      if (f == Fault.ACCEPTED) {
        answer(ex, new Call(path, true, ids, 202), JSON.createObjectNode());
        return;
      }
      if (f == Fault.FORBIDDEN) {
        answer(ex, new Call(path, true, ids, 403), error("AuthorizationFailed"));
        return;
      }
      String parent = (isOne ? one.group(1) : batch.group(1)).toLowerCase(Locale.ROOT);
      if (isOne) {
        if (!known(parent, ids.get(0))) {
          answer(ex, new Call(path, true, ids, 404), error("ScheduledEventNotFound"));
          return;
        }
        start(ids.get(0));
        ObjectNode ok = JSON.createObjectNode().put("value", "Successfully Approved");
        answer(ex, new Call(path, true, ids, 200), ok);
        return;
      }
      if (batchRefused || ids.isEmpty()) {
        answer(ex, new Call(path, true, ids, 400), error("InvalidRequest"));
        return;
      }
      boolean all = ids.stream().allMatch(id -> known(parent, id));
      ObjectNode out = JSON.createObjectNode();
      if (all) {
        ids.forEach(this::start);
        out.put("value", "Successfully Approved");
        answer(ex, new Call(path, true, ids, 200), out);
        return;
      }
      ArrayNode results = out.putArray("value");
      for (String id : ids) {
        ObjectNode r = results.addObject().put("scheduledEventId", id);
        if (known(parent, id)) {
          start(id);
          r.put("status", "Succeeded");
        } else {
          r.put("status", "Failed");
          r.putObject("error").put("code", "ScheduledEventNotFound").put("message", "not found");
        }
      }
      answer(ex, new Call(path, true, ids, 207), out);
    } catch (RuntimeException e) {
      JsonAnswer.send(ex, 500, error(e.toString()));
    }
  }

  private boolean known(String parent, String eventId) {
    return parent.equals(events.get(eventId.toLowerCase(Locale.ROOT)));
  }

  /** Starts the event once; a start that fails (the hook throws) is not taken as done. */
  private synchronized void start(String eventId) {
    if (!started.contains(eventId.toLowerCase(Locale.ROOT))) {
      onStart.accept(eventId);
      started.add(eventId.toLowerCase(Locale.ROOT));
    }
  }

  /** Azure forgets a scheduled event that is over: it can no longer be acknowledged. */
  public void forget(String resourceId) {
    Matcher m = EVENT_ID.matcher(resourceId);
    if (m.matches()) {
      events.remove(m.group(2).toLowerCase(Locale.ROOT));
      started.remove(m.group(2).toLowerCase(Locale.ROOT));
    }
  }

  /** The newest calls only: a long run (the demo's follow mode) keeps this many. */
  static final int CALLS_KEPT = 1000;

  private void answer(HttpExchange ex, Call call, JsonNode body) throws IOException {
    calls.add(call);
    while (calls.size() > CALLS_KEPT) {
      calls.remove(0);
    }
    JsonAnswer.send(ex, call.status(), body);
  }

  private static String query(URI uri, String name) {
    return JsonAnswer.query(uri, name);
  }

  private static ObjectNode error(String code) {
    return JsonAnswer.error(code);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
