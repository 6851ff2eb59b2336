package dev.sebridge.fleet.web;

import dev.sebridge.config.ConfigType;
import dev.sebridge.fleet.api.ApiException;
import dev.sebridge.fleet.api.ApprovalRequests;
import dev.sebridge.fleet.api.Campaigns;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.api.RolloutRequests;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The page's forms and what submitting them does (through the API's own request classes). */
final class PageActions {
  private final FleetViews views;
  private final PageModel model;
  private final RolloutRows rolloutRows;
  private final ApprovalRequests approvals;
  private final RolloutRequests rollouts;

  PageActions(
      FleetViews views,
      PageModel model,
      RolloutRows rolloutRows,
      ApprovalRequests approvals,
      RolloutRequests rollouts) {
    this.views = views;
    this.model = model;
    this.rolloutRows = rolloutRows;
    this.approvals = approvals;
    this.rollouts = rollouts;
  }

  VmView vm(String vmId) {
    return views.vm(vmId).orElseThrow(() -> new ApiException(404, "no VM " + vmId));
  }

  /** Events the rollout form offers at most. */
  static final int OFFERED = 200;

  /**
   * The approve and rollout forms of an event. The rollout form offers the open events of its type
   * that have a VM Scheduled, at most {@link #OFFERED}: those of its maintenance campaign ({@link
   * Campaigns}) first and checked, the others unchecked.
   */
  Map<String, Object> eventForms(String eventId, Principal p) {
    approver(p);
    EventView e = event(eventId);
    Map<String, Object> m = new LinkedHashMap<>(model.event(e, model.vmsOf(e)));
    java.util.Set<String> campaign = new java.util.HashSet<>();
    views
        .campaigns()
        .of(e.eventId().toLowerCase(java.util.Locale.ROOT))
        .ifPresent(c -> c.events().forEach(x -> campaign.add(x.eventId())));
    List<Map<String, Object>> similar = new ArrayList<>();
    views.openEvents().stream()
        .filter(x -> Objects.equals(x.eventType(), e.eventType()))
        .filter(x -> x.vms().values().stream().anyMatch(v -> v.status().equals("scheduled")))
        .sorted(
            java.util.Comparator.comparing((EventView x) -> !x.eventId().equals(e.eventId()))
                .thenComparing(x -> !campaign.contains(x.eventId()))
                .thenComparing(EventView::eventId))
        .limit(OFFERED)
        .forEach(
            x ->
                similar.add(
                    Map.of(
                        "eventId",
                        x.eventId(),
                        "vms",
                        String.join(
                            ", ",
                            x.vms().values().stream()
                                .map(v -> v.name() == null ? v.vmId() : v.name())
                                .toList()),
                        "checked",
                        x.eventId().equals(e.eventId()) || campaign.contains(x.eventId()))));
    m.put("similar", similar);
    m.put("groupChoices", RolloutSpec.GROUP_ATTRIBUTES.stream().sorted().toList());
    return m;
  }

  Map<String, Object> rolloutForms(String rolloutId, Principal p) {
    approver(p);
    Rollout r =
        views
            .rollouts()
            .get(rolloutId)
            .orElseThrow(() -> new ApiException(404, "no rollout " + rolloutId));
    return rolloutRows.rollout(r);
  }

  /** The fields each form takes (docs/fleet.md, the page's routes), and those that are lists. */
  static final java.util.Set<String> APPROVE_FIELDS = java.util.Set.of("reason", "idempotencyKey");

  static final java.util.Set<String> CAMPAIGN_FIELDS =
      java.util.Set.of(
          "reason", "maxUnavailable", "groupBy", "settle", "timeout", "idempotencyKey", "reviewed");

  static final java.util.Set<String> ROLLOUT_FIELDS =
      java.util.Set.of(
          "reason", "events", "maxUnavailable", "groupBy", "settle", "timeout", "idempotencyKey");

  static final java.util.Set<String> ACTION_FIELDS =
      java.util.Set.of("reason", "vmId", "eventId", "halt");

  static final java.util.Set<String> LISTS = java.util.Set.of("events", "groupBy");

  String onEvent(String eventId, String action, Map<String, String> form, Principal p) {
    String reason = form.get("reason");
    if (action.equals("approve")) {
      dev.sebridge.fleet.api.ApiInput.checkBody(
          "POST", "/api/events/{eventId}/approve", body("reason", reason));
      ApprovalRequests.Accepted a =
          approvals.request(eventId, null, reason, p, form.get("idempotencyKey"), "page", false);
      return "Approval request "
          + a.request().requestId()
          + " accepted for "
          + a.request().vmIds().size()
          + " VM(s): sent once the fleet-wide ledger admits it (refused if it would put a group"
          + " over a rollout's limit). IMDS releases the event for all "
          + a.releases().size()
          + " VM(s) it lists.";
    }
    List<String> events = list(form.getOrDefault("events", eventId));
    return "Rollout "
        + startRollout(events, form, p)
        + " started for "
        + events.size()
        + " event(s).";
  }

  /**
   * Starts a rollout of these events with the form's spec and reason: its id. The form, as the
   * API's body, passes the API's contract first (a blank in the limit, a group given twice, were
   * taken here and refused there).
   */
  private String startRollout(List<String> events, Map<String, String> form, Principal p) {
    com.fasterxml.jackson.databind.node.ObjectNode body =
        body(
            "reason",
            form.get("reason"),
            "maxUnavailable",
            emptyToNull(form.get("maxUnavailable")),
            "settle",
            emptyToNull(form.get("settle")),
            "timeout",
            emptyToNull(form.get("timeout")));
    events.forEach(body.putArray("eventIds")::add);
    if (emptyToNull(form.get("groupBy")) != null) {
      // As sent: a blank or an empty entry is the contract's to refuse, not this page's to drop.
      Arrays.stream(form.get("groupBy").split(",", -1)).forEach(body.putArray("groupBy")::add);
    }
    dev.sebridge.fleet.api.ApiInput.checkBody("POST", "/api/rollouts", body);
    RolloutSpec spec =
        new RolloutSpec(
            events,
            form.getOrDefault("maxUnavailable", "1"),
            list(form.get("groupBy")),
            duration(form.get("settle"), "settle"),
            duration(form.get("timeout"), "timeout"));
    return rollouts.create(spec, form.get("reason"), p, form.get("idempotencyKey"));
  }

  /**
   * Rolls a campaign out: the events {@link Campaigns#rollable} resolves it to now (what the API
   * shows as its {@code scheduledEventIds} and the CLI's {@code --campaign} takes), however many,
   * when they are those the form showed ({@link Campaigns#reviewed}; 409 when the campaign changed
   * since: an event came or went, or its grouping moved).
   */
  String onCampaign(String campaignId, Map<String, String> form, Principal p) {
    approver(p);
    dev.sebridge.fleet.api.CampaignView c =
        views
            .campaigns()
            .find(campaignId)
            .flatMap(m -> Campaigns.read(m, views))
            .orElseThrow(() -> new ApiException(404, "no such campaign: " + campaignId));
    List<String> events = Campaigns.rollable(c, views);
    if (events.isEmpty()) {
      throw new ApiException(
          409, "campaign " + campaignId + " has no open event with a VM scheduled to roll out");
    }
    // The events the form showed, or nothing: an approver rolls out what they reviewed.
    if (form.get("reviewed") == null) {
      throw new ApiException(400, "the form does not say which events it showed (reviewed)");
    }
    if (!form.get("reviewed").equals(Campaigns.reviewed(events))) {
      throw new ApiException(
          409,
          "campaign "
              + campaignId
              + " changed since the page showed it (its events are not those reviewed): reload"
              + " it and review it again");
    }
    String id = startRollout(events, form, p);
    return "Rollout "
        + id
        + " started for the "
        + events.size()
        + " event(s) of campaign "
        + campaignId
        + ".";
  }

  String onRollout(String rolloutId, String action, Map<String, String> form, Principal p) {
    String vmId = blankToNull(form.get("vmId"));
    String eventId = vmId == null ? blankToNull(form.get("eventId")) : null;
    // (the halt the page showed: a resume sent twice, or after the rollout halted again, resumes
    // nothing the operator did not read)
    String halt = blankToNull(form.get("halt"));
    // (the page's route takes resume, skip and abort only: FleetPage)
    com.fasterxml.jackson.databind.node.ObjectNode body =
        body("reason", form.get("reason"), "vmId", vmId, "eventId", eventId, "halt", halt);
    dev.sebridge.fleet.api.ApiInput.checkBody("POST", "/api/rollouts/{rolloutId}/" + action, body);
    rollouts.act(
        rolloutId,
        action,
        vmId,
        eventId,
        dev.sebridge.fleet.api.RolloutApi.instant(body, "halt"),
        form.get("reason"),
        p);
    return "Rollout " + rolloutId + ": " + action + " sent.";
  }

  private EventView event(String eventId) {
    return views.event(eventId).orElseThrow(() -> new ApiException(404, "no event " + eventId));
  }

  private static void approver(Principal p) {
    if (!p.role().mayApprove()) {
      throw new ApiException(403, p.name() + " may read, not approve");
    }
  }

  private static Duration duration(String text, String field) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return ConfigType.DURATION_TYPE.parse(text);
    } catch (RuntimeException e) {
      throw new ApiException(400, field + " is not a duration (30s, 2m, 1h): " + text);
    }
  }

  private static List<String> list(String text) {
    return text == null
        ? List.of()
        : Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /**
   * The API's body a form stands for, to check against the contract: each field and its value, in
   * pairs, those without a value left out.
   */
  private static com.fasterxml.jackson.databind.node.ObjectNode body(String... fieldsAndValues) {
    com.fasterxml.jackson.databind.node.ObjectNode body =
        dev.sebridge.fleet.streams.JsonSerde.JSON.createObjectNode();
    for (int i = 0; i < fieldsAndValues.length; i += 2) {
      if (fieldsAndValues[i + 1] != null) {
        body.put(fieldsAndValues[i], fieldsAndValues[i + 1]);
      }
    }
    return body;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
