package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutVm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The page's rollouts, as its templates show them: {@link #SHOWN} a page (active ones first, then
 * the newest), each with its groups (distinct VMs unavailable against the group's limit), waves and
 * VMs.
 */
final class RolloutRows {
  private final FleetViews views;

  RolloutRows(FleetViews views) {
    this.views = views;
  }

  /** Rollouts a page of the section shows. */
  static final int SHOWN = 20;

  /** The section's model: a page of rollouts, and its pager when there is more than one. */
  Map<String, Object> rollouts(SectionPage page) {
    List<Rollout> all = views.rollouts().ordered();
    SectionPage.Window w = page.over(all.size(), SHOWN);
    List<Map<String, Object>> rows =
        all.subList(w.from(), w.to()).stream()
            .map(views.rollouts()::assembled)
            .map(this::rollout)
            .toList();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rollouts", rows);
    m.put("page", w.page());
    m.put("pager", w.pager("rollouts", "rollouts"));
    return m;
  }

  Map<String, Object> rollout(Rollout r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("state", r.state());
    m.put("active", r.active());
    m.put("halted", r.halt() != null);
    m.put("origin", r.origin());
    m.put("reason", r.reason());
    m.put("requestedBy", r.requestedBy());
    m.put(
        "spec",
        "max unavailable "
            + r.spec().maxUnavailable()
            + (r.spec().groupBy().isEmpty() ? "" : " per " + String.join(",", r.spec().groupBy()))
            + ", settle "
            + r.spec().settle().toSeconds()
            + " s, timeout "
            + r.spec().timeout().toSeconds()
            + " s");
    m.put("events", String.join(", ", r.spec().eventIds()));
    if (r.halt() != null) {
      m.put("halt", r.halt().reason());
      m.put("haltAt", r.halt().at() == null ? "" : r.halt().at().toString());
      m.put("haltVm", r.halt().vmId());
      m.put("haltEvent", r.halt().eventId());
    }
    // Per group, distinct VMs: a VM with two events of the rollout is one VM, unavailable once.
    Map<String, java.util.Set<String>> all = new TreeMap<>();
    Map<String, java.util.Set<String>> down = new TreeMap<>();
    Map<String, String> names = new java.util.HashMap<>();
    for (RolloutVm v : r.vms().values()) {
      all.computeIfAbsent(v.group(), k -> new java.util.HashSet<>()).add(v.vmId());
      down.computeIfAbsent(v.group(), k -> new java.util.HashSet<>());
      if (v.unavailable()) {
        down.get(v.group()).add(v.vmId());
      }
      names.put(v.vmId(), name(v));
    }
    Map<String, int[]> groups = new TreeMap<>();
    all.forEach((g, ids) -> groups.put(g, new int[] {down.get(g).size(), ids.size()}));
    List<Map<String, Object>> gs = new ArrayList<>();
    groups.forEach(
        (g, n) ->
            gs.add(
                Map.of(
                    "group",
                    g,
                    "unavailable",
                    n[0],
                    "limit",
                    r.groupLimits().getOrDefault(g, 0),
                    "vms",
                    n[1])));
    m.put("groups", gs);
    List<Map<String, Object>> waves = new ArrayList<>();
    for (Rollout.Wave w : r.waves()) {
      waves.add(
          Map.of(
              "number",
              w.number(),
              "at",
              PageModel.TIME.format(w.at()),
              "vms",
              w.vmIds().stream()
                  .map(id -> names.getOrDefault(id, id))
                  .collect(Collectors.joining(", "))));
    }
    m.put("waves", waves);
    List<Map<String, Object>> vms = new ArrayList<>();
    r.vms().values().stream()
        .sorted(
            Comparator.comparing(RolloutVm::group)
                .thenComparing(RolloutVm::vmId)
                .thenComparing(RolloutVm::eventId))
        .forEach(
            v ->
                vms.add(
                    Map.of(
                        "vmId",
                        v.vmId(),
                        "name",
                        name(v),
                        "eventId",
                        v.eventId(),
                        "group",
                        v.group(),
                        "phase",
                        v.phase()
                            + (v.byPlatform() ? " (by the platform)" : "")
                            + (v.unavailable() && v.deadline() == null ? " (not waited for)" : ""),
                        "css",
                        v.phase(),
                        "wave",
                        v.wave() == null ? "" : v.wave().toString())));
    m.put("vms", vms);
    m.put(
        "counts",
        r.counts().entrySet().stream()
            .map(e -> e.getValue() + " " + e.getKey())
            .collect(Collectors.joining(", ")));
    return m;
  }

  private static String name(RolloutVm v) {
    return v.name() == null ? v.vmId() : v.name();
  }
}
