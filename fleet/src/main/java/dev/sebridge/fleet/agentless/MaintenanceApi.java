package dev.sebridge.fleet.agentless;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * SDK's HTTP pipeline (azure-core): a bearer token for the ARM endpoint, 408, 429 and 5xx retried
 * with exponential backoff as Azure's {@code Retry-After} asks, each try bounded in time and each
 * call ({@link #CALL_TIMEOUT}, and the approval's deadline) too: a call with no answer in time is
 * {@code unconfirmed}, never accepted.
 *
 * <ul>
 *   <li>one event: {@code POST {id}/acknowledge?api-version=...}, no body; Azure answers {@code
 *       {"value": "Successfully Approved"}};
 *   <li>several events of one VM, scale set or availability set: {@code POST
 *       {parent}/providers/Microsoft.Maintenance/scheduledevents?api-version=...} with {@code
 *       {"value": [eventIds]}}, which may answer 207 with a result per event. Its answer's shape is
 *       not documented: it is read defensively, and an event it does not clearly confirm is
 *       reported {@code failed} ({@code unconfirmed}), never accepted. A batch Azure refuses as a
 *       form (400, 404, 405: an API version without it) is sent again one event at a time.
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

  /** One try at most (until its answer's headers). */
  static final Duration TRY_TIMEOUT = Duration.ofSeconds(20);

  /**
   * One call at most, its retries and their waits included (Azure's {@code Retry-After} is
   * honoured, not capped: a call that would wait past this is given up).
   */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

  /** An event's outcome, as an agent would report its command's. */
  public record Outcome(String outcome, String reasonCode, String reason) {
    static Outcome accepted(String reason) {
      return new Outcome("accepted", "acknowledged", reason);
    }

    static Outcome failed(String code, String reason) {
      return new Outcome("failed", code, reason);
    }

    /** Refused before anything was sent, as an agent rejects a command. */
    static Outcome rejected(String code, String reason) {
      return new Outcome("rejected", code, reason);
    }

    public boolean isAccepted() {
      return outcome.equals("accepted");
    }
  }

  private final String endpoint;

  private final String apiVersion;
  private final MaintenanceCalls calls;

  /**
   * @param endpoint Azure Resource Manager ({@code https://management.azure.com}); tokens are asked
   *     for {@code <endpoint>/.default}
   */
  public MaintenanceApi(
      URI endpoint, String apiVersion, TokenCredential credential, HttpClient http, Clock clock) {
    this(endpoint, apiVersion, credential, http, Duration.ofMillis(800), clock);
  }

  MaintenanceApi(
      URI endpoint,
      String apiVersion,
      TokenCredential credential,
      HttpClient http,
      Duration firstRetryDelay,
      Clock clock) {
    String e = endpoint.toString();
    this.endpoint = e.endsWith("/") ? e.substring(0, e.length() - 1) : e;
    this.apiVersion = apiVersion;
    this.calls =
        new MaintenanceCalls(
            MaintenanceCalls.pipeline(credential, http, firstRetryDelay, this.endpoint), clock);
  }

  /**
   * Acknowledges each scheduled event (by ARM id): the outcome of each, by the id as given. Events
   * of one parent resource go in one batch call. No call starts after {@code deadline} (its events
   * are {@code expired}, not sent), and none runs past it.
   */
  public Map<String, Outcome> acknowledge(Collection<String> resourceIds, Instant deadline) {
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
        out.put(ids.get(0), one(ids.get(0), deadline));
      } else {
        out.putAll(batch(ids, deadline));
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

  static String eventIdOf(String id) {
    int at = id.toLowerCase(Locale.ROOT).lastIndexOf(AzureScheduledEvent.SCHEDULED_EVENTS);
    return id.substring(at + AzureScheduledEvent.SCHEDULED_EVENTS.length());
  }

  private Outcome one(String id, Instant deadline) {
    HttpRequest request =
        new HttpRequest(HttpMethod.POST, endpoint + id + "/acknowledge?api-version=" + apiVersion)
            .setHeader(HttpHeaderName.CONTENT_LENGTH, "0");
    MaintenanceCalls.Answer a = calls.send(request, deadline);
    if (a.failure() != null) {
      return a.failure();
    }
    if (a.status() == 207) {
      return MultiStatus.results(a.body(), List.of(id)).get(id);
    }
    if (a.status() == 200 || a.status() == 204) {
      return Outcome.accepted(
          "acknowledged through Azure's Maintenance API: "
              + a.body().path("value").asText("HTTP " + a.status()));
    }
    if (a.status() / 100 == 2) {
      return Outcome.failed(
          "unconfirmed",
          "Azure answered HTTP "
              + a.status()
              + ": taken, not confirmed (whether it was"
              + " acknowledged is unknown)");
    }
    return refused(a, id);
  }

  private Map<String, Outcome> batch(List<String> ids, Instant deadline) {
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
    MaintenanceCalls.Answer a = calls.send(request, deadline);
    Map<String, Outcome> out = new LinkedHashMap<>();
    if (a.failure() == null && a.status() == 207) {
      return MultiStatus.results(a.body(), ids);
    }
    if (a.failure() == null && (a.status() == 200 || a.status() == 204)) {
      JsonNode value = a.body().path("value");
      if (value.isArray()) {
        return MultiStatus.results(a.body(), ids);
      }
      boolean approved =
          a.status() == 204 || value.asText("").equalsIgnoreCase("Successfully Approved");
      ids.forEach(
          id ->
              out.put(
                  id,
                  approved
                      ? Outcome.accepted(
                          "acknowledged through Azure's Maintenance API with "
                              + (ids.size() - 1)
                              + " other event(s) of "
                              + parent)
                      : Outcome.failed(
                          "unconfirmed",
                          "Azure answered HTTP 200 without saying the events were approved: "
                              + value)));
      return out;
    }
    if (a.failure() == null && (a.status() == 400 || a.status() == 404 || a.status() == 405)) {
      // The batch form refused (an API version without it): one event at a time, each with its
      // own answer.
      LOG.warn(
          "Maintenance API: acknowledging {} events of {} at once was refused (HTTP {}); one at a"
              + " time",
          ids.size(),
          parent,
          a.status());
      ids.forEach(id -> out.put(id, one(id, deadline)));
      return out;
    }
    ids.forEach(
        id ->
            out.put(
                id,
                a.failure() != null
                    ? a.failure()
                    : a.status() / 100 == 2
                        ? Outcome.failed(
                            "unconfirmed",
                            "Azure answered HTTP "
                                + a.status()
                                + ": taken, not confirmed (whether it was acknowledged is"
                                + " unknown)")
                        : refused(a, id)));
    return out;
  }

  /** A call Azure answered with an error. */
  private static Outcome refused(MaintenanceCalls.Answer a, String id) {
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
}
