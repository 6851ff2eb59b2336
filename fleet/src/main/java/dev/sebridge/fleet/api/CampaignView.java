package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A campaign as an answer shows it ({@link Campaigns#read}): its events' sightings in the index's
 * order, the views of its open events (kept in memory), and of each closed one the tally the index
 * keeps ({@link EventTally}): no closed event's view is read to count it. An event whose sighting
 * changed since the list was taken (the index listed it open and its view has closed, or listed it
 * closed and it has reopened or been deleted) is read from its view, as it is now.
 *
 * @param sightings its events present in the views, first seen first; each open one has its view in
 *     {@code open}, each closed one its tally
 * @param open its open events' views, by key
 */
public record CampaignView(
    String id,
    List<String> kind,
    List<CampaignIndex.Sighting> sightings,
    Map<String, EventView> open) {

  /** Read from the views: none when none of its events is left. */
  static Optional<CampaignView> read(
      CampaignIndex.Members m, CampaignIndex index, FleetViews views) {
    List<CampaignIndex.Sighting> present = new ArrayList<>();
    Map<String, EventView> open = new LinkedHashMap<>();
    for (CampaignIndex.Sighting s : m.events()) {
      if (!s.open() && s.equals(index.sighting(s.key()))) {
        present.add(s); // closed, and as the index still has it
        continue;
      }
      EventView e = views.eventByKey(s.key());
      if (e == null || !Campaigns.counted(e)) {
        continue; // gone since the index listed it
      }
      CampaignIndex.Sighting now = CampaignIndex.Sighting.of(s.key(), e, s.kind());
      present.add(now);
      if (e.open()) {
        open.put(s.key(), e);
      }
    }
    return present.isEmpty()
        ? Optional.empty()
        : Optional.of(new CampaignView(m.id(), m.kind(), List.copyOf(present), open));
  }

  public String type() {
    return kind.get(0);
  }

  public String source() {
    return kind.get(1);
  }

  public String description() {
    return kind.get(2);
  }

  public boolean isOpen() {
    return !open.isEmpty();
  }

  public int eventCount() {
    return sightings.size();
  }

  /** Its open events' views, first seen first. */
  public List<EventView> openEvents() {
    return List.copyOf(open.values());
  }

  /** Its closed events, first seen first. */
  public List<CampaignIndex.Sighting> closedEvents() {
    return sightings.stream().filter(s -> !s.open()).toList();
  }

  /** Every event's EventId, first seen first. */
  public List<String> eventIds() {
    return sightings.stream().map(CampaignIndex.Sighting::eventId).toList();
  }

  /** Its soonest NotBefore among its open events: MIN when one started without one; MAX: none. */
  public Instant soonest() {
    return open.values().stream()
        .map(e -> e.notBefore() == null ? Instant.MIN : e.notBefore())
        .min(Comparator.naturalOrder())
        .orElse(Instant.MAX);
  }

  /**
   * Its VMs' parts counted, each in the status {@code status} gives it, a part without a zone or
   * scale set under {@code none}.
   */
  public Counts counts(Function<EventTally.Part, String> status, String none) {
    Map<String, Integer> byStatus = new TreeMap<>();
    Map<String, Map<String, Integer>> byZone = new TreeMap<>();
    // One row per scale set however Azure spelt its name (the first spelling kept).
    Map<String, Map<String, Integer>> bySet = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    Set<Long> distinct = new HashSet<>();
    int parts = 0; // a VM with two events of the campaign counts twice
    for (CampaignIndex.Sighting s : sightings) {
      EventTally t = s.open() ? EventTally.of(open.get(s.key())) : s.closed();
      for (long vm : t.vms()) {
        distinct.add(vm);
      }
      for (EventTally.Part p : t.parts()) {
        String shown = status.apply(p);
        parts += p.count();
        byStatus.merge(shown, p.count(), Integer::sum);
        byZone
            .computeIfAbsent(Objects.requireNonNullElse(p.zone(), none), z -> new TreeMap<>())
            .merge(shown, p.count(), Integer::sum);
        bySet
            .computeIfAbsent(Objects.requireNonNullElse(p.scaleSet(), none), z -> new TreeMap<>())
            .merge(shown, p.count(), Integer::sum);
      }
    }
    return new Counts(parts, distinct.size(), byStatus, byZone, bySet);
  }

  /**
   * A campaign's VMs counted.
   *
   * @param parts VMs' parts in its events (a VM in two of them counts twice)
   * @param vms distinct VMs
   * @param byZone by zone, then status
   * @param byScaleSet by scale set (any case), then status
   */
  public record Counts(
      int parts,
      int vms,
      Map<String, Integer> byStatus,
      Map<String, Map<String, Integer>> byZone,
      Map<String, Map<String, Integer>> byScaleSet) {}

  /**
   * As {@code GET /api/campaigns} shows it: its kind, its NotBefore span, VMs by status, zone,
   * scale set (docs/fleet-openapi.yaml, {@code Campaign}).
   */
  public ObjectNode json() {
    ObjectNode n = JsonSerde.JSON.createObjectNode();
    n.put("campaignId", id);
    n.put("eventType", type());
    n.put("eventSource", source());
    n.put("description", description());
    n.put("firstSeenAt", str(sightings.get(0).firstSeenAt()));
    n.put("lastSeenAt", str(sightings.get(sightings.size() - 1).firstSeenAt()));
    n.put(
        "nextNotBefore",
        str(
            open.values().stream()
                .map(EventView::notBefore)
                .filter(Objects::nonNull)
                .min(Comparator.naturalOrder())
                .orElse(null)));
    n.put("events", sightings.size());
    n.put("openEvents", open.size());
    Counts c = counts(EventTally.Part::status, "-");
    n.put("vmCount", c.parts());
    n.set("counts", JsonSerde.JSON.valueToTree(c.byStatus()));
    n.set("zones", JsonSerde.JSON.valueToTree(total(c.byZone())));
    n.set("scaleSets", JsonSerde.JSON.valueToTree(total(c.byScaleSet())));
    return n;
  }

  private static Map<String, Integer> total(Map<String, Map<String, Integer>> groups) {
    Map<String, Integer> out =
        groups instanceof TreeMap<String, ?> t && t.comparator() != null
            ? new TreeMap<>(String.CASE_INSENSITIVE_ORDER)
            : new TreeMap<>();
    groups.forEach(
        (g, byStatus) -> out.put(g, byStatus.values().stream().mapToInt(Integer::intValue).sum()));
    return out;
  }

  private static String str(Instant t) {
    return t == null ? null : t.toString();
  }
}
