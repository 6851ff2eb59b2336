package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.ViewTallies;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Paging while the fleet changes: between two pages VMs and events come and go (as the global
 * stores change under a reader who pages through them). Whatever happens, an item present from the
 * first page to the last is listed exactly once, nothing is listed twice, and pages are in order.
 */
class PagingTest {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");

  final MapStore<VmView> vms = new MapStore<>();
  final MapStore<EventView> events = new MapStore<>();
  // What the service keeps as the global views change: the keys a page starts from.
  final ViewTallies keys = new ViewTallies();
  Random rnd;

  FleetQueries queries(boolean keyed) {
    FleetViews views =
        new FleetViews(
            () -> vms,
            () -> events,
            () -> new MapStore<>(),
            () -> new MapStore<>(),
            () -> new MapStore<>());
    return new FleetQueries(keyed ? views.withKeys(keys) : views, Clock.fixed(T0, ZoneOffset.UTC));
  }

  /**
   * @param keyed paged through the keys the service keeps ({@link ViewTallies}), or through the
   *     stores themselves
   * @param openOnly events with {@code open=true}, VMs with {@code silent=true}: only those, read
   *     from their own keys
   */
  @Property(tries = 200)
  void anItemPresentThroughoutIsListedExactlyOnce(
      @ForAll long seed, @ForAll boolean keyed, @ForAll boolean openOnly) {
    rnd = new Random(seed);
    FleetQueries queries = queries(keyed);
    for (int i = 0; i < rnd.nextInt(60); i++) {
      putVm("vm-" + id(rnd.nextInt(80)));
      putEvent("E-" + id(rnd.nextInt(80)));
    }
    boolean listVms = rnd.nextBoolean();
    Set<String> throughout = new HashSet<>(listVms ? vms.map.keySet() : events.map.keySet());
    if (openOnly) {
      throughout.removeIf(k -> listVms ? !vms.map.get(k).silent() : !events.map.get(k).open());
    }
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int limit = 1 + rnd.nextInt(10);
    for (int pages = 0; pages < 1_000; pages++) {
      Map<String, String> q = new java.util.HashMap<>(Map.of("limit", Integer.toString(limit)));
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      FleetQueries.Page page =
          FleetQueries.Page.of(q, listVms ? FleetQueries.VMS : FleetQueries.EVENTS);
      ObjectNode answer =
          listVms
              ? queries.vms(openOnly ? true : null, null, page)
              : queries.events(
                  new FleetQueries.EventFilter(
                      openOnly ? true : null, null, null, null, null, null),
                  page);
      JsonNode items = answer.get(listVms ? "vms" : "events");
      assertThat(items.size()).isLessThanOrEqualTo(limit);
      items.forEach(
          n -> {
            if (openOnly) {
              // as the store has it when listed, not as the answer says
              String key =
                  listVms
                      ? n.get("vmId").asText()
                      : n.get("eventId").asText().toLowerCase(Locale.ROOT);
              assertThat(listVms ? vms.map.get(key).silent() : events.map.get(key).open())
                  .as(key + " listed as " + (listVms ? "silent" : "open"))
                  .isTrue();
            }
            listed.add(
                listVms
                    ? n.get("vmId").asText()
                    : n.get("eventId").asText().toLowerCase(Locale.ROOT));
          });
      // Meanwhile the fleet changes: items come and go, some of them ones already listed.
      for (int c = 0; c < rnd.nextInt(6); c++) {
        // an event's key is its EventId lower-cased, as the store keeps it
        String key = ((listVms ? "vm-" : "e-") + id(rnd.nextInt(80))).toLowerCase(Locale.ROOT);
        boolean remove = rnd.nextBoolean();
        if (listVms) {
          if (remove) {
            remove(vms, FleetTopology.VMS_VIEW, key);
          } else {
            putVm(key);
          }
        } else if (remove) {
          remove(events, FleetTopology.EVENTS_VIEW, key);
        } else {
          putEvent(key.toUpperCase(Locale.ROOT));
        }
        throughout.remove(key);
      }
      if (!answer.has("next")) {
        break;
      }
      assertThat(items.size()).isEqualTo(limit);
      cursor = answer.get("next").asText();
    }
    assertThat(listed)
        .doesNotHaveDuplicates()
        .isSortedAccordingTo(ViewTallies.STORE_ORDER)
        .containsAll(throughout);
  }

  /**
   * Through the kept keys, a page reads the views it lists and no other: the open events' page
   * reads no event from the store (their views are kept), however many closed ones there are, and
   * neither list iterates a store.
   */
  @org.junit.jupiter.api.Test
  void aPageThroughTheKeptKeysReadsOnlyWhatItLists() {
    rnd = new Random(7);
    for (int i = 0; i < 500; i++) {
      putVm(String.format("vm-%03d", i));
      putEvent(String.format("E-%03d", i));
    }
    FleetQueries queries = queries(true);
    long open = events.map.values().stream().filter(EventView::open).count();
    assertThat(open).isBetween(200L, 450L); // a third closed, spread among the open ones

    ObjectNode page =
        queries.events(
            new FleetQueries.EventFilter(true, null, null, null, null, null),
            FleetQueries.Page.of(Map.of("limit", "20"), FleetQueries.EVENTS));
    assertThat(page.get("events")).hasSize(20).allMatch(e -> e.get("open").asBoolean());
    assertThat(events.gets).isEmpty(); // the open events' views as kept: nothing read or parsed
    queries.vms(null, null, FleetQueries.Page.of(Map.of("limit", "20"), FleetQueries.VMS));
    assertThat(vms.gets).hasSize(21);
    assertThat(vms.scans.get() + events.scans.get()).isZero();
  }

  /**
   * A filter that keeps few reads at most {@link KeyScans#AT_MOST} records a page: the pages before
   * the one event it keeps are empty with a {@code next}, and following {@code next} finds it once,
   * through the kept keys and through the store alike. Before, the first page read all 12,000.
   */
  @org.junit.jupiter.api.Test
  void aFilterThatKeepsFewReadsAtMostFiveThousandRecordsAPage() {
    rnd = new Random(11);
    for (int i = 0; i < 12_000; i++) {
      putEvent(String.format("E-%05d", i));
    }
    for (boolean keyed : new boolean[] {true, false}) {
      FleetQueries queries = queries(keyed);
      FleetQueries.EventFilter f =
          new FleetQueries.EventFilter(null, null, null, null, null, null, null, null, "e-11999");
      List<String> found = new ArrayList<>();
      int pages = 0;
      String cursor = null;
      do {
        int readBefore = events.gets.size();
        Map<String, String> q = new java.util.HashMap<>(Map.of("limit", "50"));
        if (cursor != null) {
          q.put("cursor", cursor);
        }
        ObjectNode page = queries.events(f, FleetQueries.Page.of(q, FleetQueries.EVENTS));
        if (keyed) {
          assertThat(events.gets.size() - readBefore).isLessThanOrEqualTo(KeyScans.AT_MOST);
        }
        page.get("events").forEach(e -> found.add(e.get("eventId").asText()));
        cursor = page.hasNonNull("next") ? page.get("next").asText() : null;
        pages++;
      } while (cursor != null);
      assertThat(found).as("keyed: " + keyed).containsExactly("E-11999");
      assertThat(pages).as("keyed: " + keyed).isEqualTo(3);
    }
  }

  /**
   * The kept keys change how a page reads, not what it answers: the same data gives the same
   * answers either way (open events, their silent agents, one event, silent VMs), page after page.
   */
  @Property(tries = 50)
  void theKeptKeysAnswerAsTheStoresDo(@ForAll long seed) throws Exception {
    rnd = new Random(seed);
    for (int i = 0; i < 40; i++) {
      putVm("vm-" + id(rnd.nextInt(30)));
      putEvent("E-" + id(rnd.nextInt(30)));
    }
    putVm("vm-1"); // the events' VM, silent or not
    for (boolean events : List.of(true, false)) {
      for (Boolean filter : java.util.Arrays.asList(null, true, false)) {
        String cursor = null;
        for (int pages = 0; pages < 100; pages++) {
          Map<String, String> q = new java.util.HashMap<>(Map.of("limit", "4"));
          if (cursor != null) {
            q.put("cursor", cursor);
          }
          ObjectNode[] answers = new ObjectNode[2];
          for (int k = 0; k < 2; k++) {
            FleetQueries queries = queries(k == 1);
            FleetQueries.Page page =
                FleetQueries.Page.of(q, events ? FleetQueries.EVENTS : FleetQueries.VMS);
            answers[k] =
                events
                    ? queries.events(
                        new FleetQueries.EventFilter(filter, null, null, null, null, null), page)
                    : queries.vms(filter, null, page);
          }
          assertThat(answers[1]).isEqualTo(answers[0]);
          if (!answers[0].has("next")) {
            break;
          }
          cursor = answers[0].get("next").asText();
        }
      }
    }
    for (String id : events.map.keySet()) {
      assertThat(queries(true).event(id)).isEqualTo(queries(false).event(id));
    }
  }

  /** While Streams does not run the store throws: an open events' page fails, kept or not. */
  @org.junit.jupiter.api.Test
  void aPageOfOpenEventsFailsWhileTheStoreCannotBeRead() {
    rnd = new Random(1);
    putEvent("E-1");
    FleetViews stopped =
        new FleetViews(
                () -> vms,
                () -> {
                  throw new org.apache.kafka.streams.errors.InvalidStateStoreException("stopped");
                },
                () -> new MapStore<>(),
                () -> new MapStore<>(),
                () -> new MapStore<>())
            .withKeys(keys);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new FleetQueries(stopped, Clock.fixed(T0, ZoneOffset.UTC))
                    .events(
                        new FleetQueries.EventFilter(true, null, null, null, null, null),
                        FleetQueries.Page.of(Map.of(), FleetQueries.EVENTS)))
        .isInstanceOf(org.apache.kafka.streams.errors.InvalidStateStoreException.class);
  }

  /**
   * An id's tail: plain, or with a character outside the Basic Multilingual Plane, or one of
   * U+E000-U+FFFF (the two sort apart by {@code String}'s order and by the stores').
   */
  static String id(int n) {
    return switch (n % 3) {
      case 0 -> "\uD83D\uDE00" + n;
      case 1 -> "\uFF21" + n;
      default -> Integer.toString(n);
    };
  }

  <V> void remove(MapStore<V> store, String name, String key) {
    store.map.remove(key);
    keys.keyChanged(name, key, null);
  }

  void putVm(String vmId) {
    VmView v =
        new VmView(
            vmId,
            vmId,
            null,
            "sub-1",
            "rg",
            "westeurope",
            "1",
            "web",
            "0.1.0",
            T0,
            T0,
            T0,
            60,
            Map.of(),
            rnd.nextInt(3) == 0,
            Set.of());
    vms.map.put(vmId, v);
    keys.keyChanged(FleetTopology.VMS_VIEW, vmId, v);
  }

  /** An event, open or (a third of them) closed. */
  void putEvent(String eventId) {
    EventView e =
        new EventView(
            eventId,
            "Reboot",
            "Platform",
            T0,
            -1,
            "planned",
            List.of("web-1"),
            T0,
            T0,
            rnd.nextInt(3) == 0 ? T0 : null,
            Map.of(
                "vm-1",
                new VmEventState("vm-1", "web-1", "1", "web", "scheduled", null, T0, null)));
    String key = eventId.toLowerCase(Locale.ROOT);
    events.map.put(key, e);
    keys.keyChanged(FleetTopology.EVENTS_VIEW, key, e);
  }
}
