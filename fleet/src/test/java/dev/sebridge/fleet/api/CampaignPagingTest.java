package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
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
  Random rnd;

  @Property(tries = 200)
  void aCampaignOpenThroughoutIsListedExactlyOnce(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 7) int limit) {
    rnd = new Random(seed);
    FleetViews views = new FleetViews(() -> null, () -> events, () -> null, () -> null, () -> null);
    FleetQueries queries = new FleetQueries(views, Clock.fixed(T0, ZoneOffset.UTC));
    for (int i = 0; i < 5 + rnd.nextInt(40); i++) {
      change();
    }
    // A filter, or none.
    String type = rnd.nextInt(3) == 0 ? TYPES.get(rnd.nextInt(TYPES.size())) : null;
    String text = rnd.nextInt(4) == 0 ? "d" + rnd.nextInt(4) : null;
    Set<String> throughout = open(type, text);
    List<String> listed = new ArrayList<>();
    List<String> orders = new ArrayList<>();
    String cursor = null;
    for (int pages = 0; pages < 1_000; pages++) {
      Map<String, String> q = new HashMap<>(Map.of("limit", Integer.toString(limit)));
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      ObjectNode answer =
          queries.campaigns(
              type == null ? null : type.toLowerCase(Locale.ROOT),
              null,
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
        assertThat(type == null || c.type().equals(type)).as("%s of type %s", id, type).isTrue();
        assertThat(text == null || (c.description() + id).toLowerCase(Locale.ROOT).contains(text))
            .as("%s holds %s", id, text)
            .isTrue();
        listed.add(id);
        orders.add(order(c));
      }
      // Meanwhile maintenance comes and goes.
      for (int k = 0; k < rnd.nextInt(5); k++) {
        change();
      }
      throughout.retainAll(open(type, text));
      if (!answer.hasNonNull("next")) {
        break;
      }
      cursor = answer.get("next").asText();
    }
    assertThat(listed).as("none listed twice").doesNotHaveDuplicates();
    assertThat(listed).as("every campaign open throughout").containsAll(throughout);
    assertThat(orders).as("in the list's order").isSorted();
  }

  /** The open campaigns of this type and text (null: any) as the events are now. */
  private Set<String> open(String type, String text) {
    Set<String> out = new HashSet<>();
    for (Campaigns.Campaign c : Campaigns.of(events.map.values())) {
      if (c.open()
          && (type == null || c.type().equals(type))
          && (text == null || (c.description() + c.id()).toLowerCase(Locale.ROOT).contains(text))) {
        out.add(c.id());
      }
    }
    return out;
  }

  /** Where a campaign stands in the list: its first event's first sighting, then its id. */
  private static String order(Campaigns.Campaign c) {
    Instant first = c.events().get(0).firstSeenAt();
    return String.format(Locale.ROOT, "%019d%09d", first.getEpochSecond(), first.getNano())
        + " "
        + c.id();
  }

  /** An event seen (a new one, or one seen again), closed, or dropped from the view. */
  private void change() {
    int n = rnd.nextInt(30);
    String key = "e-" + n;
    int what = rnd.nextInt(10);
    if (what < 2) {
      events.map.remove(key);
    } else if (what < 4 && events.map.containsKey(key)) {
      events.map.put(key, event(events.map.get(key), true));
    } else if (!events.map.containsKey(key)) {
      // Several events of one kind, seen within the hour: one campaign of them.
      String description = "d" + rnd.nextInt(4);
      String type = TYPES.get(rnd.nextInt(TYPES.size()));
      Instant seen = T0.plusSeconds(600L * rnd.nextInt(40));
      events.map.put(
          key,
          new EventView(
              key.toUpperCase(Locale.ROOT),
              type,
              "Platform",
              seen.plusSeconds(3600),
              5,
              description,
              List.of("vm-" + n),
              seen,
              seen,
              null,
              Map.of(
                  "id-" + n,
                  new VmEventState(
                      "id-" + n, "vm-" + n, "1", null, "scheduled", null, seen, null))));
    }
  }

  private static EventView event(EventView e, boolean closed) {
    return new EventView(
        e.eventId(),
        e.eventType(),
        e.eventSource(),
        e.notBefore(),
        e.durationInSeconds(),
        e.description(),
        e.resources(),
        e.firstSeenAt(),
        e.lastSeenAt(),
        closed ? e.lastSeenAt() : null,
        e.vms());
  }
}
