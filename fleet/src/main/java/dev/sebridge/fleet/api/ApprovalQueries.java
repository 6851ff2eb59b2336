package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.streams.KeyValue;

/**
 * {@code GET /api/approvals}: the approval requests the views hold (a month of them, {@code
 * fleet.history-retention}), a page at a time in request id order, by event, by who asked, by
 * state, by a VM it names or where they are (zone, scale set, resource group), by its event's type
 * and source (as the events view has the event: a request whose event the views no longer hold,
 * closed more than {@code fleet.closed-retention} ago, has none), and by text.
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
    String text = q.get("text");
    String vmId = q.get("vmId");
    Predicate<VmView> place = place(q.get("zone"), q.get("scaleSet"), q.get("resourceGroup"));
    String type = q.get("type");
    String source = q.get("source");
    // Each event read once a page, as the VMs: they count against the page's budget too.
    Map<String, java.util.Optional<EventView>> events = new java.util.HashMap<>();
    boolean byKind = type != null || source != null;
    // The event a type or source filter reads for a request: null when it reads none (no such
    // filter, or a request of no event, which is of no type either).
    java.util.function.Function<ApprovalRequest, String> eventKey =
        r -> !byKind || r.eventId() == null ? null : r.eventId().toLowerCase(java.util.Locale.ROOT);
    Predicate<ApprovalRequest> kind =
        r -> {
          String key = eventKey.apply(r);
          return !byKind
              || key != null
                  && events
                      .computeIfAbsent(key, views::event)
                      .filter(e -> type == null || type.equalsIgnoreCase(e.eventType()))
                      .filter(e -> source == null || source.equalsIgnoreCase(e.eventSource()))
                      .isPresent();
        };
    // Each VM read once a page; the VM views read count against the page's budget (a request of a
    // wave names hundreds of VMs): the page stops there, and its next goes on.
    Map<String, java.util.Optional<VmView>> read = new java.util.HashMap<>();
    Predicate<RequestView> keep =
        v -> {
          ApprovalRequest r = v.request();
          return r != null
              && (event == null || event.equalsIgnoreCase(r.eventId()))
              && (by == null || by.equalsIgnoreCase(r.requestedBy()))
              && (state == null || state.equals(state(v)))
              && (vmId == null || r.vmIds().stream().anyMatch(vmId::equalsIgnoreCase))
              && ListAnswers.mentions(text, r.eventId(), r.reason(), r.requestedBy(), r.origin())
              && kind.test(r)
              && (place == null
                  || r.vmIds().stream()
                      .map(id -> read.computeIfAbsent(id, views::vm))
                      .flatMap(java.util.Optional::stream)
                      .anyMatch(place));
        };
    List<KeyValue<String, RequestView>> found =
        views.requestsAfter(
            page.after(),
            KeyScans.reading(
                keep,
                () -> read.size() + events.size(),
                v -> {
                  ApprovalRequest r = v.request();
                  if (r == null) {
                    return 0;
                  }
                  String key = eventKey.apply(r);
                  return (key == null || events.containsKey(key) ? 0 : 1)
                      + (place == null
                          ? 0
                          : (int)
                              r.vmIds().stream()
                                  .distinct()
                                  .filter(id -> !read.containsKey(id))
                                  .count());
                }),
            page.limit() + 1);
    return ListAnswers.page(
        APPROVALS, "approvals", found, page.limit(), clock, (a, kv) -> a.add(json(kv.value)));
  }

  /**
   * A VM in all of the zone, scale set and resource group given (the last two case-insensitive), as
   * its view has it now; null when none is given.
   */
  static Predicate<VmView> place(String zone, String scaleSet, String resourceGroup) {
    if (zone == null && scaleSet == null && resourceGroup == null) {
      return null;
    }
    return v ->
        (zone == null || zone.equals(v.zone()))
            && (scaleSet == null || scaleSet.equalsIgnoreCase(v.scaleSet()))
            && (resourceGroup == null || resourceGroup.equalsIgnoreCase(v.resourceGroup()));
  }

  /** {@code GET /api/approvals/{requestId}}. */
  java.util.Optional<ObjectNode> request(String requestId) {
    return views.request(requestId).map(ApprovalQueries::json);
  }

  /** A request as the API shows it: the view, each outcome counted, and whether it is complete. */
  static ObjectNode json(RequestView r) {
    ObjectNode n = JsonSerde.JSON.valueToTree(r);
    Map<String, Integer> outcomes = new java.util.TreeMap<>();
    r.vms()
        .values()
        .forEach(
            v -> outcomes.merge(v.outcome() == null ? "waiting" : v.outcome(), 1, Integer::sum));
    n.set("outcomes", JsonSerde.JSON.valueToTree(outcomes));
    n.put("complete", r.complete());
    return n;
  }
}
