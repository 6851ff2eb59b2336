package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
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
  final FleetQueries queries =
      new FleetQueries(
          new FleetViews(
              () -> vms,
              () -> events,
              () -> new MapStore<>(),
              () -> new MapStore<>(),
              () -> new MapStore<>()),
          Clock.fixed(T0, ZoneOffset.UTC));

  @Property(tries = 200)
  void anItemPresentThroughoutIsListedExactlyOnce(@ForAll long seed) {
    Random rnd = new Random(seed);
    for (int i = 0; i < rnd.nextInt(60); i++) {
      putVm("vm-" + rnd.nextInt(80));
      putEvent("E-" + rnd.nextInt(80));
    }
    boolean listVms = rnd.nextBoolean();
    Set<String> throughout = new HashSet<>(listVms ? vms.map.keySet() : events.map.keySet());
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int limit = 1 + rnd.nextInt(10);
    for (int pages = 0; pages < 1_000; pages++) {
      Map<String, String> q = new java.util.HashMap<>(Map.of("limit", Integer.toString(limit)));
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      FleetQueries.Page page = FleetQueries.Page.of(q);
      ObjectNode answer =
          listVms
              ? queries.vms(null, null, page)
              : queries.events(
                  new FleetQueries.EventFilter(null, null, null, null, null, null), page);
      JsonNode items = answer.get(listVms ? "vms" : "events");
      assertThat(items.size()).isLessThanOrEqualTo(limit);
      items.forEach(
          n ->
              listed.add(
                  listVms
                      ? n.get("vmId").asText()
                      : n.get("eventId").asText().toLowerCase(Locale.ROOT)));
      // Meanwhile the fleet changes: items come and go, some of them ones already listed.
      for (int c = 0; c < rnd.nextInt(6); c++) {
        String key = (listVms ? "vm-" : "e-") + rnd.nextInt(80);
        boolean remove = rnd.nextBoolean();
        if (listVms) {
          if (remove) {
            vms.map.remove(key);
          } else {
            putVm(key);
          }
        } else if (remove) {
          events.map.remove(key);
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
    assertThat(listed).doesNotHaveDuplicates().isSorted().containsAll(throughout);
  }

  void putVm(String vmId) {
    vms.map.put(
        vmId,
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
            false,
            Set.of()));
  }

  void putEvent(String eventId) {
    events.map.put(
        eventId.toLowerCase(Locale.ROOT),
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
            null,
            Map.of(
                "vm-1",
                new VmEventState("vm-1", "web-1", "1", "web", "scheduled", null, T0, null))));
  }
}
