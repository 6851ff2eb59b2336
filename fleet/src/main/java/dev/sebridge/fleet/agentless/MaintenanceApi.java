package dev.sebridge.fleet.agentless;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipeline;
import com.azure.core.http.HttpPipelineBuilder;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.BearerTokenAuthenticationPolicy;
import com.azure.core.http.policy.ExponentialBackoff;
import com.azure.core.http.policy.RequestIdPolicy;
import com.azure.core.http.policy.RetryPolicy;
import com.azure.core.http.policy.TimeoutPolicy;
import com.azure.core.http.policy.UserAgentPolicy;
import com.azure.core.util.Context;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Azure's Maintenance API as the fleet uses it: acknowledging scheduled events, which Azure takes,
 * like an approval through IMDS, as "may start" for every VM the event lists. Through the Azure
 * SDK's HTTP pipeline (azure-core): a bearer token for the ARM endpoint, 429 and 5xx retried with
 * exponential backoff as Azure's {@code Retry-After} asks, each try bounded in time.
 *
 * <ul>
 *   <li>one event: {@code POST {id}/acknowledge?api-version=...}, no body; Azure answers {@code
 *       {"value": "Successfully Approved"}};
 *   <li>several events of one VM, scale set or availability set: {@code POST
 *       {parent}/providers/Microsoft.Maintenance/scheduledevents?api-version=...} with {@code
 *       {"value": [eventIds]}}, which may answer 207 with a result per event. Its answer's shape is
 *       not documented: it is read defensively, and an event it does not clearly confirm is
 *       reported {@code failed} ({@code unconfirmed}), never accepted. A batch Azure refuses
 *       outright is sent again one event at a time.
 * </ul>
 *
 * <p>Every outcome is the agent's vocabulary: {@code accepted}, or {@code failed} with a reason
 * code and Azure's own words.
 */
public final class MaintenanceApi {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The API version both calls are in (the batch form only in this one and later). */
  public static final String DEFAULT_API_VERSION = "2025-10-01-preview";

  /** Tries of one call: the first and three more for 429, 408 and 5xx. */
  static final int RETRIES = 3;

  /** One try at most. */
  static final Duration TRY_TIMEOUT = Duration.ofSeconds(20);

  /** An event's outcome, as an agent would report its command's. */
  public record Outcome(String outcome, String reasonCode, String reason) {
    static Outcome accepted(String reason) {
      return new Outcome("accepted", "acknowledged", reason);
    }

    static Outcome failed(String code, String reason) {
      return new Outcome("failed", code, reason);
    }

    public boolean isAccepted() {
      return outcome.equals("accepted");
    }
  }

  private final String endpoint;
  private final String apiVersion;
  private final HttpPipeline pipeline;

  /**
   * @param endpoint Azure Resource Manager ({@code https://management.azure.com}); tokens are asked
   *     for {@code <endpoint>/.default}
   */
  public MaintenanceApi(
      URI endpoint, String apiVersion, TokenCredential credential, HttpClient http) {
    this(endpoint, apiVersion, credential, http, Duration.ofMillis(800));
  }

  MaintenanceApi(
      URI endpoint,
      String apiVersion,
      TokenCredential credential,
      HttpClient http,
      Duration firstRetryDelay) {
    String e = endpoint.toString();
    this.endpoint = e.endsWith("/") ? e.substring(0, e.length() - 1) : e;
    this.apiVersion = apiVersion;
    this.pipeline =
        new HttpPipelineBuilder()
            .httpClient(http)
            .policies(
                new UserAgentPolicy("sebridge-fleet"),
                new RequestIdPolicy(),
                new RetryPolicy(
                    new ExponentialBackoff(RETRIES, firstRetryDelay, Duration.ofSeconds(30))),
                new TimeoutPolicy(TRY_TIMEOUT),
                new BearerTokenAuthenticationPolicy(credential, this.endpoint + "/.default"))
            .build();
  }

  /**
   * Acknowledges each scheduled event (by ARM id): the outcome of each, by the id as given. Events
   * of one parent resource go in one batch call.
   */
  public Map<String, Outcome> acknowledge(Collection<String> resourceIds) {
    Map<String, Outcome> out = new LinkedHashMap<>();
    Map<String, List<String>> byParent = new LinkedHashMap<>();
    for (String id : resourceIds) {
      String parent = parentOf(id);
      if (parent == null) {
        out.put(
            id,
            Outcome.failed(
                "bad-resource-id",
                "not the ARM id of a scheduled event on a VM, scale set or availability set: "
                    + id));
      } else {
        byParent.computeIfAbsent(parent.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(id);
      }
    }
    for (List<String> ids : byParent.values()) {
      if (ids.size() == 1) {
        out.put(ids.get(0), one(ids.get(0)));
      } else {
        out.putAll(batch(ids));
      }
    }
    return out;
  }

  /** The VM, scale set or availability set a scheduled event's ARM id is under, or null. */
  static String parentOf(String id) {
    if (id == null) {
      return null;
    }
    int at = id.toLowerCase(Locale.ROOT).lastIndexOf(AzureScheduledEvent.SCHEDULED_EVENTS);
    if (at <= 0) {
      return null;
    }
    String eventId = id.substring(at + AzureScheduledEvent.SCHEDULED_EVENTS.length());
    return AzureScheduledEvent.isScheduledEventId(id, eventId)
            && eventId.matches("[A-Za-z0-9-]{1,64}")
        ? id.substring(0, at)
        : null;
  }

  private static String eventIdOf(String id) {
    int at = id.toLowerCase(Locale.ROOT).lastIndexOf(AzureScheduledEvent.SCHEDULED_EVENTS);
    return id.substring(at + AzureScheduledEvent.SCHEDULED_EVENTS.length());
  }

  private Outcome one(String id) {
    HttpRequest request =
        new HttpRequest(HttpMethod.POST, endpoint + id + "/acknowledge?api-version=" + apiVersion)
            .setHeader(HttpHeaderName.CONTENT_LENGTH, "0");
    Answer a = send(request);
    if (a.failure() != null) {
      return a.failure();
    }
    if (a.status() == 207) {
      return results(a.body(), List.of(id)).get(id);
    }
    if (a.status() / 100 == 2) {
      return Outcome.accepted(
          "acknowledged through Azure's Maintenance API: "
              + a.body().path("value").asText("HTTP " + a.status()));
    }
    return refused(a, id);
  }

  private Map<String, Outcome> batch(List<String> ids) {
    String parent = parentOf(ids.get(0));
    Map<String, Object> body =
        Map.of("value", ids.stream().map(MaintenanceApi::eventIdOf).toList());
    HttpRequest request;
    try {
      request =
          new HttpRequest(
                  HttpMethod.POST,
                  endpoint
                      + parent
                      + "/providers/Microsoft.Maintenance/scheduledevents?api-version="
                      + apiVersion)
              .setHeader(HttpHeaderName.CONTENT_TYPE, "application/json")
              .setBody(JSON.writeValueAsBytes(body));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    Answer a = send(request);
    if (a.failure() == null && a.status() == 207) {
      return results(a.body(), ids);
    }
    if (a.failure() == null && a.status() / 100 == 2) {
      Map<String, Outcome> out = new LinkedHashMap<>();
      ids.forEach(
          id ->
              out.put(
                  id,
                  Outcome.accepted(
                      "acknowledged through Azure's Maintenance API with "
                          + (ids.size() - 1)
                          + " other event(s) of "
                          + parent)));
      return out;
    }
    // Refused as a whole (an API version without the batch form, a throttled or failing service):
    // one event at a time, each with its own answer.
    LOG.warn(
        "Maintenance API: acknowledging {} events of {} at once failed ({}); one at a time",
        ids.size(),
        parent,
        a.failure() != null ? a.failure().reason() : "HTTP " + a.status());
    Map<String, Outcome> out = new LinkedHashMap<>();
    ids.forEach(id -> out.put(id, one(id)));
    return out;
  }

  /** An answer: its status and body, or what went wrong on the way. */
  private record Answer(int status, JsonNode body, Outcome failure) {}

  private Answer send(HttpRequest request) {
    try (HttpResponse r = pipeline.sendSync(request, Context.NONE)) {
      byte[] bytes =
          r.getBodyAsBinaryData() == null ? new byte[0] : r.getBodyAsBinaryData().toBytes();
      JsonNode body;
      try {
        body = bytes.length == 0 ? JSON.nullNode() : JSON.readTree(bytes);
      } catch (java.io.IOException notJson) {
        body = JSON.nullNode();
      }
      return new Answer(r.getStatusCode(), body == null ? JSON.nullNode() : body, null);
    } catch (RuntimeException e) {
      LOG.warn("Maintenance API: {} {} failed", request.getHttpMethod(), request.getUrl(), e);
      return new Answer(
          0,
          JSON.nullNode(),
          Outcome.failed(
              "unreachable",
              "Azure's Maintenance API could not be reached after "
                  + (RETRIES + 1)
                  + " tries: "
                  + e.getMessage()));
    }
  }

  /** A call Azure answered with an error. */
  private static Outcome refused(Answer a, String id) {
    JsonNode error = a.body().path("error");
    String said =
        "HTTP "
            + a.status()
            + (error.isObject()
                ? " " + error.path("code").asText("") + ": " + error.path("message").asText("")
                : "");
    return switch (a.status()) {
      case 401, 403 ->
          Outcome.failed(
              "forbidden",
              said
                  + " (the fleet's identity needs the Scheduled Events Contributor role on "
                  + parentOf(id)
                  + ")");
      case 404 -> Outcome.failed("not-found", said + " (over, or never known to Azure)");
      case 409 -> Outcome.failed("conflict", said);
      default ->
          a.status() == 408 || a.status() == 429 || a.status() >= 500
              ? Outcome.failed(
                  "maintenance-api-unavailable", said + ", after " + (RETRIES + 1) + " tries")
              : Outcome.failed("maintenance-api-refused", said);
    };
  }

  /**
   * A 207's results: an entry per event, named by id, scheduled event id or name, succeeded by a
   * 2xx status or a word of success; anything else failed, with the entry's error.
   */
  static Map<String, Outcome> results(JsonNode body, List<String> ids) {
    JsonNode entries = body.isArray() ? body : body.path("value");
    Map<String, JsonNode> byEvent = new java.util.HashMap<>();
    if (entries.isArray()) {
      for (JsonNode e : entries) {
        for (String f : List.of("scheduledEventId", "eventId", "id", "name", "resourceId")) {
          String v = e.path(f).asText("");
          if (!v.isBlank()) {
            String last = v.substring(v.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
            byEvent.putIfAbsent(last, e);
            break;
          }
        }
      }
    }
    Map<String, Outcome> out = new LinkedHashMap<>();
    for (String id : ids) {
      JsonNode e = byEvent.get(eventIdOf(id).toLowerCase(Locale.ROOT));
      if (e == null) {
        out.put(
            id,
            Outcome.failed(
                "unconfirmed",
                "Azure answered 207 without a result for this event: whether it was acknowledged"
                    + " is unknown"));
        continue;
      }
      int status = -1;
      String word = "";
      for (String f : List.of("status", "statusCode", "httpStatusCode", "result")) {
        JsonNode s = e.path(f);
        if (s.isNumber() || s.asText("").matches("\\d{3}")) {
          status = s.asInt();
        } else if (s.isTextual()) {
          word = s.asText();
        }
      }
      JsonNode err = e.path("error");
      String message =
          err.isObject()
              ? err.path("code").asText("") + ": " + err.path("message").asText("")
              : err.isTextual() ? err.asText() : e.path("message").asText("");
      boolean ok =
          err.isMissingNode()
              && (status / 100 == 2
                  || word.toLowerCase(Locale.ROOT).matches(".*(succe|approved|acknowledged).*"));
      out.put(
          id,
          ok
              ? Outcome.accepted("acknowledged through Azure's Maintenance API (207: " + word + ")")
              : Outcome.failed(
                  "maintenance-api-refused",
                  "Azure's result for this event (207): "
                      + (status > 0 ? "HTTP " + status + " " : "")
                      + word
                      + (message.isBlank() ? "" : " " + message)));
    }
    return out;
  }
}
