package dev.sebridge.fleet.web;

import dev.sebridge.fleet.ViewChanges;
import dev.sebridge.fleet.streams.FleetTopology;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page's sections, the views each is told of ({@link LiveStream}), and those its mark covers.
 */
final class SectionViews {
  private SectionViews() {}

  /** The page's sections and the views each shows. */
  static final Map<String, List<String>> SECTIONS = sections();

  /**
   * The view stores whose topics a section's mark covers: what it reads (the silent agents, from
   * the VMs' view; a rollout, from its header and its parts), which is more than what it is told
   * of.
   */
  static final Map<String, List<String>> MARKED = marked();

  /** {@link #SECTIONS} with the silent agents read from where they come from, the VMs' view. */
  private static Map<String, List<String>> marked() {
    Map<String, List<String>> m = new LinkedHashMap<>();
    SECTIONS.forEach(
        (section, stores) ->
            m.put(
                section,
                stores.stream()
                    .map(s -> s.equals(ViewChanges.SILENT_AGENTS) ? FleetTopology.VMS_VIEW : s)
                    .distinct()
                    .toList()));
    return java.util.Collections.unmodifiableMap(m);
  }

  private static Map<String, List<String>> sections() {
    Map<String, List<String>> m = new LinkedHashMap<>();
    m.put("events", List.of(FleetTopology.EVENTS_VIEW, FleetTopology.POLICIES_VIEW));
    // (a rollout's VMs are in its parts, written before its header but to another topic: an
    // instance may apply the header first)
    m.put("rollouts", List.of(FleetTopology.ROLLOUTS_VIEW, FleetTopology.ROLLOUT_PARTS_VIEW));
    // (told by the tallies when the list changes, and with the inventory: its "unknown VM" marks)
    m.put(
        "silent",
        List.of(dev.sebridge.fleet.ViewChanges.SILENT_AGENTS, FleetTopology.INVENTORY_VIEW));
    m.put("coverage", List.of(FleetTopology.VMS_VIEW, FleetTopology.INVENTORY_VIEW));
    m.put("approvals", List.of(FleetTopology.REQUESTS_VIEW));
    return java.util.Collections.unmodifiableMap(m);
  }
}
