package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.streams.KeyValue;

/**
 * {@code GET /api/approvals}: the approval requests the views hold (a month of them, {@code
 * fleet.history-retention}), a page at a time in request id order, by event, by who asked, by state
 * and by text.
 */
final class ApprovalQueries {
  /** The list's name in its cursors, and its page size by default. */
  static final String APPROVALS = "approvals";

  static final int PAGE = 100;

  private final FleetViews views;
  private final Clock clock;

  ApprovalQueries(FleetViews views, Clock clock) {
    this.views = views;
    this.clock = clock;
  }

  /**
   * A request's state as the list filters it: refused (by the ledger or the checks, or its commands
   * could not be signed: nothing was sent), waiting (some VM has no result yet), or complete (every
   * VM has one).
   */
  static String state(RequestView r) {
    boolean refused = r.request() != null && r.request().refusal() != null;
    boolean unsent =
        !r.vms().isEmpty()
            && r.vms().values().stream().allMatch(v -> "not-sent".equals(v.reasonCode()));
    if (refused || unsent) {
      return "refused";
    }
    return r.complete() ? "complete" : "waiting";
  }

  ObjectNode list(Map<String, String> q) {
    FleetQueries.Page page = FleetQueries.Page.of(q, APPROVALS, PAGE);
    String event = q.get("eventId");
    String by = q.get("requestedBy");
    String state = q.get("state");
    String text = q.containsKey("text") ? q.get("text").toLowerCase(Locale.ROOT) : null;
    Predicate<RequestView> keep =
        v -> {
          ApprovalRequest r = v.request();
          return r != null
              && (event == null || event.equalsIgnoreCase(r.eventId()))
              && (by == null || by.equalsIgnoreCase(r.requestedBy()))
              && (state == null || state.equals(state(v)))
              && (text == null
                  || contains(r.eventId(), text)
                  || contains(r.reason(), text)
                  || contains(r.requestedBy(), text));
        };
    List<KeyValue<String, RequestView>> found =
        views.requestsAfter(page.after(), keep, page.limit() + 1);
    List<KeyValue<String, RequestView>> shown =
        found.subList(0, Math.min(page.limit(), found.size()));
    ObjectNode out = JsonSerde.JSON.createObjectNode();
    out.put("generatedAt", clock.instant().toString());
    ArrayNode list = out.putArray("approvals");
    shown.forEach(kv -> list.add(FleetQueries.requestJson(kv.value)));
    if (found.size() > page.limit()) {
      out.put("next", Cursors.of(APPROVALS, shown.get(shown.size() - 1).key));
    }
    return out;
  }

  private static boolean contains(String field, String lowerText) {
    return field != null && field.toLowerCase(Locale.ROOT).contains(lowerText);
  }
}
