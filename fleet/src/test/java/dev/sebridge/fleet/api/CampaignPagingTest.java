package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * {@code GET /api/campaigns} a page at a time while maintenance comes and goes between the pages
 * (events seen, closed, dropped; campaigns of one event and of several): a campaign open from the
 * first page to the last, its first event staying, is listed exactly once; none is listed twice;
 * the pages are in the list's order; each listed campaign matches the filter and was open when
 * listed. Compared with {@link Campaigns#of} over the events as they are at each page, not with the
 * index the list reads.
 */
class CampaignPagingTest {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");
  static final List<String> TYPES = List.of("Reboot", "Freeze", "Redeploy");

  final MapStore<EventView> events = new MapStore<>();
  CampaignIndex index; // the service's, kept change by change; null: built from the views
  Random rnd;

  @Property(tries = 200)
  void aCampaignOpenThroughoutIsListedExactlyOnce(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 7) int limit, @ForAll boolean kept) {
    rnd = new Random(seed);
    events.map.clear(); // (the container's fields outlive a try)
    index = kept ? new CampaignIndex() : null;
    FleetViews views = new FleetViews(() -> null, () -> events, () -> null, () -> null, () -> null);
    FleetQueries queries =
        new FleetQueries(
            kept ? views.withCampaigns(index) : views, Clock.fixed(T0, ZoneOffset.UTC));
    for (int i = 0; i < 5 + rnd.nextInt(40); i++) {
      change();
    }
    // A filter, or none (any case).
    String type = rnd.nextInt(3) == 0 ? TYPES.get(rnd.nextInt(TYPES.size())) : null;
    String source = rnd.nextInt(4) == 0 ? (rnd.nextBoolean() ? "Platform" : "User") : null;
    String text = rnd.nextInt(4) == 0 ? "d" + rnd.nextInt(4) : null;
    Set<String> throughout = open(type, source, text);
    Statistics.label("open campaigns at the start").collect(throughout.isEmpty() ? "none" : "some");
    Statistics.label("open campaigns at the start")
        .coverage(c -> c.check("some").percentage(p -> p >= 50)); // not a vacuous property
    List<String> listed = new ArrayList<>();
    List<Campaigns.Campaign> inOrder = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    while (pages++ < 1_000) {
      Map<String, String> q = new HashMap<>(Map.of("limit", Integer.toString(limit)));
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      ObjectNode answer =
          queries.campaigns(
              type == null ? null : type.toLowerCase(Locale.ROOT),
              source == null ? null : source.toUpperCase(Locale.ROOT),
              text == null ? null : text.toUpperCase(Locale.ROOT),
              FleetQueries.Page.of(q, FleetQueries.CAMPAIGNS));
      JsonNode items = answer.get("campaigns");
      assertThat(items.size()).isLessThanOrEqualTo(limit);
      Map<String, Campaigns.Campaign> now =
          Campaigns.of(events.map.values()).stream()
              .collect(Collectors.toMap(Campaigns.Campaign::id, c -> c));
      for (JsonNode n : items) {
        String id = n.get("campaignId").asText();
        Campaigns.Campaign c = now.get(id);
        assertThat(c).as("%s is a campaign of the events now", id).isNotNull();
        assertThat(c.open()).as("%s open when listed", id).isTrue();
        assertThat(matches(c, type, source, text)).as("%s matches the filter", id).isTrue();
        listed.add(id);
        inOrder.add(c);
      }
      // Meanwhile maintenance comes and goes.
      int changes = rnd.nextInt(5);
      for (int k = 0; k < changes; k++) {
        change();
      }
      throughout.retainAll(open(type, source, text));
      if (!answer.hasNonNull("next")) {
        break;
      }
      cursor = answer.get("next").asText();
    }
    Statistics.label("pages").collect(pages > 2 ? "3 or more" : pages + "");
    assertThat(listed).as("none listed twice").doesNotHaveDuplicates();
    assertThat(listed).as("every campaign open with its id throughout").containsAll(throughout);
    assertThat(inOrder).as("in the list's order").isSortedAccordingTo(BY_FIRST_SIGHTING);
  }

  /** The documented order: the first event's first sighting (none last), then the id. */
  static final Comparator<Campaigns.Campaign> BY_FIRST_SIGHTING =
      Comparator.comparing(
              (Campaigns.Campaign c) -> c.events().get(0).firstSeenAt(),
              Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
          .thenComparing(Campaigns.Campaign::id);

  private static boolean matches(Campaigns.Campaign c, String type, String source, String text) {
    return (type == null || c.type().equals(type))
        && (source == null || c.source().equals(source))
        && (text == null || (c.description() + c.id()).toLowerCase(Locale.ROOT).contains(text));
  }

  /** The open campaigns of this filter (null: any) as the events are now. */
  private Set<String> open(String type, String source, String text) {
    Set<String> out = new HashSet<>();
    for (Campaigns.Campaign c : Campaigns.of(events.map.values())) {
      if (c.open() && matches(c, type, source, text)) {
        out.add(c.id());
      }
    }
    return out;
  }

  /**
   * An event seen (a new one), closed, dropped from the view, or found to have been seen earlier (a
   * report made earlier arriving late): its campaign's id may change then.
   */
  private void change() {
    int n = rnd.nextInt(30);
    String key = "e-" + n;
    EventView before = events.map.get(key);
    int what = rnd.nextInt(10);
    EventView after;
    if (what < 2) {
      after = null;
    } else if (what < 4 && before != null) {
      after = event(before, before.firstSeenAt(), true);
    } else if (what < 5 && before != null && before.firstSeenAt() != null) {
      after = event(before, before.firstSeenAt().minusSeconds(1 + rnd.nextInt(4_000)), false);
    } else if (before == null) {
      // Several events of one kind, seen within the hour: one campaign of them; now and then
      // one never seen, or seen before 1970 (an agent's clock), with nanos.
      String description = "d" + rnd.nextInt(4);
      String type = TYPES.get(rnd.nextInt(TYPES.size()));
      Instant base = rnd.nextInt(8) == 0 ? Instant.EPOCH.minusSeconds(7_200) : T0;
      Instant seen =
          rnd.nextInt(10) == 0
              ? null
              : base.plusSeconds(600L * rnd.nextInt(40)).plusNanos(rnd.nextInt(1_000_000_000));
      Instant notBefore = (seen == null ? T0 : seen).plusSeconds(3600);
      after =
          new EventView(
              key.toUpperCase(Locale.ROOT),
              type,
              rnd.nextInt(5) == 0 ? "User" : "Platform",
              notBefore,
              5,
              description,
              List.of("vm-" + n),
              seen,
              seen,
              null,
              Map.of(
                  "id-" + n,
                  new VmEventState(
                      "id-" + n, "vm-" + n, "1", null, "scheduled", null, notBefore, null)));
    } else {
      return;
    }
    if (after == null) {
      events.map.remove(key);
    } else {
      events.map.put(key, after);
    }
    if (index != null) {
      index.keyChanged(FleetTopology.EVENTS_VIEW, key, after);
    }
  }

  private static EventView event(EventView e, Instant firstSeenAt, boolean closed) {
    return new EventView(
        e.eventId(),
        e.eventType(),
        e.eventSource(),
        e.notBefore(),
        e.durationInSeconds(),
        e.description(),
        e.resources(),
        firstSeenAt,
        e.lastSeenAt(),
        closed ? T0 : null,
        e.vms());
  }
}
