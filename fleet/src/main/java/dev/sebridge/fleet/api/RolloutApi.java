package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.config.ConfigType;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.streams.JsonSerde;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rollout and policy routes of the API (docs/fleet-openapi.yaml): start a rollout of one event
 * or several, follow it, resume, skip or abort it; and the central policies with their decisions.
 */
public final class RolloutApi implements Route {
  private static final Pattern EVENT_ROLLOUT = Pattern.compile("/api/events/([^/]+)/rollout");
  private static final Pattern ROLLOUT = Pattern.compile("/api/rollouts/([^/]+)");
  private static final Pattern ACTION =
      Pattern.compile("/api/rollouts/([^/]+)/(resume|skip|abort)");

  private final RolloutRequests requests;
  private final FleetViews views;
  private final Policies policies;
  private final java.time.Clock clock;

  public RolloutApi(
      RolloutRequests requests, FleetViews views, Policies policies, java.time.Clock clock) {
    this.requests = requests;
    this.views = views;
    this.policies = policies;
    this.clock = clock;
  }

  @Override
  public boolean handle(HttpCall ex, String path, Optional<Principal> principal)
      throws IOException {
    if (principal.isEmpty()
        || !(path.startsWith("/api/rollouts")
            || path.equals("/api/policies")
            || EVENT_ROLLOUT.matcher(path).matches())) {
      return false; // not ours, or FleetServer answers 401
    }
    Principal p = principal.get();
    String method = ex.method();
    Matcher m;
    if ((m = EVENT_ROLLOUT.matcher(path)).matches() && method.equals("POST")) {
      ApiInput.query(ex, "/api/events/{eventId}/rollout");
      created(
          ex,
          create(
              ApiInput.body(ex, "/api/events/{eventId}/rollout"),
              List.of(ApiInput.segment(m.group(1))),
              p,
              ex));
    } else if (path.equals("/api/rollouts") && method.equals("POST")) {
      ApiInput.query(ex, "/api/rollouts");
      JsonNode body = ApiInput.body(ex, "/api/rollouts");
      created(ex, create(body, strings(body.get("eventIds")), p, ex));
    } else if (path.equals("/api/rollouts") && method.equals("GET")) {
      ex.json(200, list(ApiInput.query(ex, "/api/rollouts")));
    } else if ((m = ACTION.matcher(path)).matches() && method.equals("POST")) {
      ApiInput.query(ex, "/api/rollouts/{rolloutId}/" + m.group(2));
      JsonNode body = ApiInput.body(ex, "/api/rollouts/{rolloutId}/" + m.group(2));
      requests.act(
          ApiInput.segment(m.group(1)),
          m.group(2),
          body.path("vmId").asText(null),
          body.path("eventId").asText(null),
          instant(body, "halt"),
          body.path("reason").asText(null),
          p);
      ex.json(
          202,
          JsonSerde.JSON.createObjectNode().put("rolloutId", m.group(1)).put("action", m.group(2)));
    } else if ((m = ROLLOUT.matcher(path)).matches() && method.equals("GET")) {
      ApiInput.query(ex, "/api/rollouts/{rolloutId}");
      ex.json(
          200,
          JsonSerde.JSON.valueToTree(
              ApiInput.found(views.rollouts().get(ApiInput.segment(m.group(1))), "rollout")));
    } else if (path.equals("/api/policies") && method.equals("GET")) {
      ApiInput.query(ex, "/api/policies");
      ObjectNode out = JsonSerde.JSON.createObjectNode();
      out.put("version", policies.version());
      out.set("rules", JsonSerde.JSON.valueToTree(policies.rules()));
      ex.json(200, out);
    } else {
      throw ApiInput.noRoute(ex, path);
    }
    return true;
  }

  private String create(JsonNode body, List<String> eventIds, Principal p, HttpCall ex) {
    RolloutSpec spec =
        new RolloutSpec(
            eventIds,
            body.path("maxUnavailable").asText("1"),
            strings(body.get("groupBy")),
            duration(body, "settle"),
            duration(body, "timeout"),
            duration(body, "reportGrace"));
    return requests.create(spec, body.path("reason").asText(null), p, ex.header("Idempotency-Key"));
  }

  private static void created(HttpCall ex, String id) throws IOException {
    ex.header("Location", "/api/rollouts/" + id);
    ex.json(202, JsonSerde.JSON.createObjectNode().put("rolloutId", id));
  }

  /** An RFC 3339 time, or null when absent. */
  public static java.time.Instant instant(JsonNode body, String field) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    try {
      // (RFC 3339 allows a lower-case t and z)
      return java.time.OffsetDateTime.parse(
              n.asText(),
              new java.time.format.DateTimeFormatterBuilder()
                  .parseCaseInsensitive()
                  .append(java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                  .toFormatter())
          .toInstant();
    } catch (java.time.format.DateTimeParseException e) {
      throw new ApiException(400, field + " is not an RFC 3339 date-time: " + n.asText());
    }
  }

  private static Duration duration(JsonNode body, String field) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    try {
      return ConfigType.DURATION_TYPE.parse(n.asText());
    } catch (RuntimeException e) {
      throw new ApiException(400, field + " is not a duration (2m, 20m, 1h): " + n.asText());
    }
  }

  /** A JSON array of strings, or one comma-separated string. */
  static List<String> strings(JsonNode n) {
    List<String> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (n.isArray()) {
      n.forEach(v -> out.add(v.asText()));
    } else {
      Arrays.stream(n.asText().split(","))
          .map(String::trim)
          .filter(s -> !s.isEmpty())
          .forEach(out::add);
    }
    return out;
  }

  /** The cursors' name for the rollouts' list, and its page sizes (a rollout can be megabytes). */
  static final String ROLLOUTS = "rollouts";

  static final int ROLLOUTS_PAGE = 20;

  /**
   * {@code GET /api/rollouts}: a page of rollouts in id order, by state, by an event they roll out
   * (which rollouts hold it), by their events' type or source, by where their VMs are ({@link
   * RolloutMatches}), and by text.
   */
  ObjectNode list(java.util.Map<String, String> q) {
    FleetQueries.Page page = FleetQueries.Page.of(q, ROLLOUTS, ROLLOUTS_PAGE);
    String state = q.get("state");
    String text = q.get("text");
    String eventId = q.get("eventId");
    java.util.function.Predicate<dev.sebridge.fleet.rollout.Rollout> cheap =
        r ->
            (state == null || r.state().name().equalsIgnoreCase(state))
                && (eventId == null || views.rollouts().holds(r, eventId))
                && ListAnswers.mentions(text, r.id(), r.reason(), r.requestedBy());
    // By type, source or place: what it reads counts against the page's budget.
    RolloutMatches matches = RolloutMatches.of(q, views);
    java.util.function.Predicate<dev.sebridge.fleet.rollout.Rollout> keep =
        matches == null ? cheap : KeyScans.first(cheap, matches);
    return ListAnswers.page(
        ROLLOUTS,
        "rollouts",
        views.rollouts().after(page.after(), keep, page.limit() + 1),
        page.limit(),
        clock,
        // Put together only those shown (a rollout's VMs are in parts: RolloutParts).
        (a, kv) ->
            views.rollouts().get(kv.key).ifPresent(r -> a.add(JsonSerde.JSON.valueToTree(r))));
  }
}
