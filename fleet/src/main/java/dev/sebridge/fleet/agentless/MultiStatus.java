package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the Maintenance API's per-event results (a 207, or a 200 with a list) strictly: Microsoft
 * does not document their shape, so an event is accepted only when every status its entry gives
 * says so, and anything unclear is a failure or {@code unconfirmed}, never accepted.
 */
final class MultiStatus {
  private MultiStatus() {}

  /** What a 207's entry may say of an event Azure took and has not done yet (any case). */
  private static final Set<String> PENDING =
      Set.of("accepted", "inprogress", "in progress", "running");

  /** What a 207's entry may say of an event that was acknowledged (any case); nothing else is. */
  private static final Set<String> SUCCESS =
      Set.of(
          "succeeded",
          "success",
          "successful",
          "approved",
          "successfully approved",
          "acknowledged",
          "ok");

  /**
   * A 207's results (or a 200's list): an entry per event, named by id, scheduled event id or name;
   * accepted only when every status it gives is 200 or 204 or a word of {@link #SUCCESS}, and it
   * has no error; anything else failed, with the entry's words, and an event it does not name is
   * {@code unconfirmed}.
   */
  static Map<String, MaintenanceApi.Outcome> results(JsonNode body, List<String> ids) {
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
    Map<String, MaintenanceApi.Outcome> out = new LinkedHashMap<>();
    for (String id : ids) {
      JsonNode e = byEvent.get(MaintenanceApi.eventIdOf(id).toLowerCase(Locale.ROOT));
      if (e == null) {
        out.put(
            id,
            MaintenanceApi.Outcome.failed(
                "unconfirmed",
                "Azure answered 207 without a result for this event: whether it was acknowledged"
                    + " is unknown"));
        continue;
      }
      // Every signal the entry gives must say success: a status of 200 or 204, a word of the
      // success list; an error, any other status or word, or no signal at all is a failure.
      List<String> said = new ArrayList<>();
      boolean ok = e.path("error").isMissingNode() || e.path("error").isNull();
      boolean signal = false;
      // Taken but not done (202, Accepted, InProgress): Azure may act on it; unknown, not refused.
      boolean pending = false;
      for (String f : List.of("status", "statusCode", "httpStatusCode", "result")) {
        JsonNode s = e.path(f);
        if (s.isMissingNode() || s.isNull()) {
          continue;
        }
        signal = true;
        String text = s.asText("").trim();
        said.add(f + " " + text);
        if (text.matches("\\d{3}")) {
          ok &= text.equals("200") || text.equals("204");
          pending |= text.equals("202");
        } else {
          ok &= SUCCESS.contains(text.toLowerCase(Locale.ROOT));
          pending |= PENDING.contains(text.toLowerCase(Locale.ROOT));
        }
      }
      JsonNode err = e.path("error");
      String message =
          err.isObject()
              ? err.path("code").asText("") + ": " + err.path("message").asText("")
              : err.isTextual() ? err.asText() : e.path("message").asText("");
      out.put(
          id,
          ok && signal
              ? MaintenanceApi.Outcome.accepted(
                  "acknowledged through Azure's Maintenance API (207: "
                      + String.join(", ", said)
                      + ")")
              : MaintenanceApi.Outcome.failed(
                  signal && !pending ? "maintenance-api-refused" : "unconfirmed",
                  "Azure's result for this event (207): "
                      + (said.isEmpty() ? "no status" : String.join(", ", said))
                      + (message.isBlank() ? "" : " " + message)));
    }
    return out;
  }
}
