package dev.sebridge.fleet.api;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Rollout;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * {@code GET /api/rollouts} by what a rollout rolls out: an event of a type or source (as the
 * events view has it: an event the views no longer hold, closed more than {@code
 * fleet.closed-retention} ago, has none), or a VM of a zone, scale set or resource group (as its
 * view has it now). It reads each rollout's entries, and its events' or VMs' views, each once a
 * page, and all of them count against the page's budget ({@link KeyScans#AT_MOST}): a page stops
 * before a rollout whose reads would take it past, unless that rollout is its first.
 */
final class RolloutMatches implements KeyScans.Reading<Rollout> {
  private final FleetViews views;
  private final String type;
  private final String source;
  private final Predicate<VmView> place;
  // A page's memo: each rollout's members, event and VM read once.
  private final Map<String, RolloutViews.Members> members = new HashMap<>();
  private final Map<String, Optional<EventView>> events = new HashMap<>();
  private final Map<String, Optional<VmView>> vms = new HashMap<>();
  private int entries;

  private RolloutMatches(FleetViews views, String type, String source, Predicate<VmView> place) {
    this.views = views;
    this.type = type;
    this.source = source;
    this.place = place;
  }

  /** The filter the query asks for; null when it asks for none of these. */
  static RolloutMatches of(Map<String, String> q, FleetViews views) {
    String type = q.get("type");
    String source = q.get("source");
    Predicate<VmView> place =
        ApprovalQueries.place(q.get("zone"), q.get("scaleSet"), q.get("resourceGroup"));
    return type == null && source == null && place == null
        ? null
        : new RolloutMatches(views, type, source, place);
  }

  private boolean byKind() {
    return type != null || source != null;
  }

  /** Its members, reading at most {@code most} entries; kept for the page once read whole. */
  private RolloutViews.Members members(Rollout r, int most) {
    RolloutViews.Members m = members.get(r.id());
    if (m == null) {
      m = views.rollouts().members(r, most, byKind(), place != null);
      entries += m.read();
      if (m.complete()) {
        members.put(r.id(), m);
      }
    }
    return m;
  }

  @Override
  public int reads() {
    return entries + events.size() + vms.size();
  }

  /**
   * Its entries not read yet (as many as the page has left of its budget: a rollout of 20,000 VMs
   * is not read whole to learn that it does not fit), and the views of its events or VMs not read
   * yet.
   */
  @Override
  public int toRead(Rollout r) {
    return toRead(r, KeyScans.AT_MOST - reads());
  }

  @Override
  public int toRead(Rollout r, int left) {
    int before = entries;
    RolloutViews.Members m = members(r, Math.max(0, left));
    if (!m.complete()) {
      return Math.max(0, left) + 1; // more than is left: the next page tests it first
    }
    int n = entries - before; // read just now: not in reads() yet for the caller
    if (byKind()) {
      n +=
          (int)
              m.eventIds().stream()
                  .map(id -> id.toLowerCase(Locale.ROOT))
                  .distinct()
                  .filter(k -> !events.containsKey(k))
                  .count();
    }
    if (place != null) {
      n += (int) m.vmIds().stream().filter(id -> !vms.containsKey(id)).count();
    }
    return n;
  }

  @Override
  public boolean test(Rollout r) {
    RolloutViews.Members m = members(r, Integer.MAX_VALUE);
    return (!byKind()
            || m.eventIds().stream()
                .map(id -> events.computeIfAbsent(id.toLowerCase(Locale.ROOT), views::event))
                .flatMap(Optional::stream)
                .anyMatch(
                    e ->
                        (type == null || type.equalsIgnoreCase(e.eventType()))
                            && (source == null || source.equalsIgnoreCase(e.eventSource()))))
        && (place == null
            || m.vmIds().stream()
                .map(id -> vms.computeIfAbsent(id, views::vm))
                .flatMap(Optional::stream)
                .anyMatch(place));
  }
}
