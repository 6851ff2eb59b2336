package dev.sebridge.fleet.web;

import dev.sebridge.fleet.ViewTallies;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.inventory.Coverage;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** What the page's templates show, read from the views: plain maps and lists. */
final class PageModel {
  /** The order and words of the status bar. */
  static final List<String> STATUSES =
      List.of("scheduled", "approved", "started", "completed", "canceled", "silent");

  static final java.time.format.DateTimeFormatter TIME =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
          .withZone(java.time.ZoneOffset.UTC);

  /** How many silent agents the page lists (the count says how many there are). */
  static final int SILENT_SHOWN = 50;

  private final FleetViews views;
  private final ViewTallies tallies;
  private final Coverage coverage;

  /**
   * @param coverage the inventory's counts, which say which VMs are unknown; null without an
   *     inventory (no VM is marked)
   */
  PageModel(FleetViews views, ViewTallies tallies, Coverage coverage) {
    this.views = views;
    this.tallies = tallies;
    this.coverage = coverage;
  }

  /**
   * Whether to mark a VM "unknown VM": by the coverage counts' rule (the inventory as it is now),
   * so the marks agree with the counts.
   */
  boolean unknown(String vmId) {
    return coverage != null && coverage.unknown(vmId);
  }

  /**
   * A vmId or an EventId as one path segment of a page link: an agent chooses both, and a {@code
   * ../} or {@code ?} in one must not lead the link to another page ("." and ".." themselves never
   * key a view: {@code EnvelopeSerde} skips them).
   */
  static String segment(String vmId) {
    return java.net.URLEncoder.encode(vmId, java.nio.charset.StandardCharsets.UTF_8)
        .replace("+", "%20");
  }

  Map<String, Object> event(EventView e, Map<String, VmView> vms) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("eventId", e.eventId());
    m.put("eventPath", segment(e.eventId()));
    m.put("eventType", e.eventType());
    m.put("eventSource", e.eventSource());
    m.put("description", e.description());
    m.put("notBefore", e.notBefore() == null ? null : e.notBefore().toString());
    m.put("vmCount", e.vms().size());
    m.put("listed", e.resources().size());
    List<Map<String, Object>> rows = new ArrayList<>();
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, Map<String, Integer>> byZone = new TreeMap<>();
    // One row per scale set however Azure spelt its name (the first spelling shown).
    Map<String, Map<String, Integer>> bySet = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (VmEventState s : e.vms().values()) {
      VmView v = vms.get(s.vmId());
      String status = status(s, v);
      counts.merge(status, 1, Integer::sum);
      byZone
          .computeIfAbsent(s.zone() == null ? "none" : s.zone(), z -> new TreeMap<>())
          .merge(status, 1, Integer::sum);
      bySet
          .computeIfAbsent(s.scaleSet() == null ? "none" : s.scaleSet(), z -> new TreeMap<>())
          .merge(status, 1, Integer::sum);
      rows.add(
          Map.of(
              "vmId", s.vmId(),
              "vmPath", segment(s.vmId()),
              "name", Objects.requireNonNullElse(s.name(), s.vmId()),
              "zone", Objects.requireNonNullElse(s.zone(), "-"),
              "scaleSet", Objects.requireNonNullElse(s.scaleSet(), "-"),
              "status", status,
              "unknown", unknown(s.vmId())));
    }
    m.put("bar", bar(counts, e.vms().size()));
    m.put("zones", breakdown(byZone));
    m.put("scaleSets", breakdown(bySet));
    m.put("vms", rows);
    views
        .decision(e.eventId())
        .ifPresent(
            d ->
                m.put(
                    "policy",
                    d.rule() == null
                        ? "no policy rule matched (v" + d.version() + ")"
                        : "policy " + d.rule() + " v" + d.version() + ": " + d.detail()));
    return m;
  }

  /** The status shown for a VM: a silent agent first, then its part in the event. */
  static String status(VmEventState s, VmView v) {
    return status(s, v != null && v.silent());
  }

  /** A VM's part in an event as the page shows it: silent when its open part's agent is. */
  static String status(VmEventState s, boolean silent) {
    if (silent && !s.closed()) {
      return "silent";
    }
    return s.status().equals("inferred")
        ? Objects.requireNonNullElse(s.guess(), "completed")
        : s.status();
  }

  static List<Map<String, Object>> bar(Map<String, Integer> counts, int total) {
    List<Map<String, Object>> bar = new ArrayList<>();
    for (String status : STATUSES) {
      int n = counts.getOrDefault(status, 0);
      if (n > 0) {
        bar.add(
            Map.of(
                "status", status,
                "count", n,
                "pct", Math.max(4, Math.round(100f * n / Math.max(1, total)))));
      }
    }
    return bar;
  }

  static List<Map<String, Object>> breakdown(Map<String, Map<String, Integer>> groups) {
    List<Map<String, Object>> out = new ArrayList<>();
    groups.forEach(
        (g, c) ->
            out.add(
                Map.of(
                    "group",
                    g,
                    "counts",
                    c.entrySet().stream()
                        .map(x -> x.getValue() + " " + x.getKey())
                        .collect(Collectors.joining(", ")))));
    return out;
  }

  /**
   * A page of {@link #SILENT_SHOWN} silent agents in key order, each read by key, and how many are
   * silent: never a scan of the VM views.
   */
  Map<String, Object> silent(SectionPage page) {
    SectionPage.Window w = page.over(tallies.silentCount(), SILENT_SHOWN);
    List<Map<String, Object>> rows =
        tallies.silentKeys().stream()
            .skip(w.from())
            .limit(SILENT_SHOWN)
            .map(views::vm)
            .flatMap(java.util.Optional::stream)
            .filter(VmView::silent) // the view as read now, should it have changed meanwhile
            .map(v -> row(v, unknown(v.vmId())))
            .toList();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("silent", rows);
    m.put("empty", w.total() == 0);
    m.put("page", w.page());
    m.put("pager", w.pager("silent", "silent agents"));
    return m;
  }

  /** A VM in a list of the page (silent agents, unknown VMs): a link to its panel. */
  static Map<String, Object> row(VmView v, boolean unknown) {
    return Map.of(
        "vmId", v.vmId(),
        "vmPath", segment(v.vmId()),
        "unknown", unknown,
        "name", Objects.requireNonNullElse(v.name(), v.vmId()),
        "zone", Objects.requireNonNullElse(v.zone(), "-"),
        "scaleSet", Objects.requireNonNullElse(v.scaleSet(), "-"),
        "lastSeenAt", v.lastSeenAt() == null ? "never" : v.lastSeenAt().toString());
  }

  /**
   * A page of {@link #APPROVALS_SHOWN} of the newest approval requests ({@link
   * dev.sebridge.fleet.api.RecentRequests#KEPT} are paged through; the CLI and the API list all).
   */
  Map<String, Object> approvals(SectionPage page) {
    dev.sebridge.fleet.api.RecentRequests.Newest newest = views.newestRequests();
    SectionPage.Window w = page.over(newest.keys().size(), APPROVALS_SHOWN);
    List<Map<String, Object>> rows =
        approvalRows(
            newest.keys().subList(w.from(), w.to()).stream()
                .map(views::request)
                .flatMap(java.util.Optional::stream)
                .filter(r -> r.request() != null)
                .toList());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("approvals", rows);
    m.put("empty", newest.keys().isEmpty());
    m.put("page", w.page());
    m.put("pager", w.pager("approvals", "newest approvals"));
    m.put("older", newest.older() && w.page() == w.pages());
    return m;
  }

  /** Approval requests a page of the approval history shows. */
  static final int APPROVALS_SHOWN = 50;

  private static List<Map<String, Object>> approvalRows(List<RequestView> requests) {
    return requests.stream()
        .map(
            r -> {
              Map<String, Object> m = new LinkedHashMap<>();
              Instant at = r.request().requestedAt();
              m.put("at", at == null ? "-" : TIME.format(at));
              m.put("by", r.request().requestedBy());
              m.put("eventId", r.request().eventId());
              m.put("reason", r.request().reason());
              m.put("origin", r.request().origin());
              List<Map<String, Object>> vms = new ArrayList<>();
              r.vms()
                  .forEach(
                      (vm, res) ->
                          vms.add(
                              Map.of(
                                  "vmId",
                                  vm,
                                  "outcome",
                                  res.outcome() == null ? "waiting" : res.outcome(),
                                  "reason",
                                  Objects.requireNonNullElse(res.reasonCode(), ""))));
              m.put("vms", vms);
              return m;
            })
        .toList();
  }

  Map<String, Object> vm(VmView v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("vmId", v.vmId());
    m.put("name", Objects.requireNonNullElse(v.name(), v.vmId()));
    m.put("resourceId", v.resourceId());
    m.put("zone", v.zone());
    m.put("scaleSet", v.scaleSet());
    m.put("resourceGroup", v.resourceGroup());
    m.put("location", v.location());
    m.put("agentVersion", v.agentVersion());
    m.put("lastHeartbeatAt", v.lastHeartbeatAt() == null ? null : v.lastHeartbeatAt().toString());
    m.put("lastSeenAt", v.lastSeenAt() == null ? null : v.lastSeenAt().toString());
    m.put("silent", v.silent());
    m.put("unknown", unknown(v.vmId()));
    m.put("openEvents", List.copyOf(v.openEvents()));
    return m;
  }

  /** The views of the event's VMs (read by key). */
  Map<String, VmView> vmsOf(EventView e) {
    return views.vmsOf(List.of(e));
  }
}
