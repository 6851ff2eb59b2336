package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Lists whose filters read other views to decide ({@code GET /api/approvals} by where the requests'
 * VMs are, {@code GET /api/events} by the subscription of the VMs an event lists), a page at a
 * time: what the filter reads counts against the page's budget.
 */
class ReadingFilterPagingTest {
  static final Instant T0 = ListFixtures.T0;

  final MapStore<VmView> vms = new MapStore<>();
  final MapStore<RequestView> requests = new MapStore<>();

  /**
   * The VM views a place filter reads count against the page's budget of {@link KeyScans#AT_MOST}
   * records: 300 requests of a wave, 50 VMs each, only the last one's in zone 3. The pages before
   * it are empty with a {@code next}, none reads more than the budget, and following {@code next}
   * finds it once. Before, the first page read all 15,000 VM views.
   */
  @Test
  void theVmsAPlaceFilterReadsCountAgainstThePagesBudget() {
    for (int r = 0; r < 300; r++) {
      List<String> ids = new ArrayList<>();
      for (int v = 0; v < 50; v++) {
        String id = String.format("vm-%03d-%02d", r, v);
        ids.add(id);
        vms.map.put(id, vm(id, r == 299 ? "3" : "1"));
      }
      putRequest(String.format("r-%03d", r), ids);
    }
    FleetQueries queries = approvalQueries();

    List<String> found = new ArrayList<>();
    int pages =
        follow(
            cursor -> {
              Map<String, String> q = new HashMap<>(Map.of("zone", "3", "limit", "50"));
              if (cursor != null) {
                q.put("cursor", cursor);
              }
              return queries.approvals(q);
            },
            page ->
                page.get("approvals")
                    .forEach(a -> found.add(a.get("request").get("requestId").asText())),
            KeyScans.AT_MOST);

    assertThat(found).containsExactly("r-299");
    // A request read and its 50 VMs are 51 of the 5,000: 99 requests a page.
    assertThat(pages).isEqualTo(4);
  }

  /**
   * The same for events by subscription: 300 events of 50 VMs each, only the last one's VMs in
   * another subscription, paged through the open events as kept and through the store. Before, the
   * first page read all 15,000 VM views.
   */
  @Test
  void theVmsASubscriptionFilterReadsCountAgainstThePagesBudget() {
    MapStore<EventView> events = new MapStore<>();
    dev.sebridge.fleet.ViewTallies keys = new dev.sebridge.fleet.ViewTallies();
    for (int r = 0; r < 300; r++) {
      Map<String, VmEventState> parts = new HashMap<>();
      for (int v = 0; v < 50; v++) {
        String id = String.format("vm-%03d-%02d", r, v);
        parts.put(id, new VmEventState(id, id, "1", null, "scheduled", null, T0, null));
        vms.map.put(id, vm(id, "1", r == 299 ? "sub-2" : "sub-1"));
      }
      String key = String.format("e-%03d", r);
      EventView e = ListFixtures.event(key, "Reboot", "Platform", parts);
      events.map.put(key, e);
      keys.keyChanged(dev.sebridge.fleet.streams.FleetTopology.EVENTS_VIEW, key, e);
    }
    for (boolean keyed : new boolean[] {true, false}) {
      FleetViews views =
          new FleetViews(() -> vms, () -> events, () -> requests, () -> null, () -> null);
      FleetQueries queries =
          new FleetQueries(keyed ? views.withKeys(keys) : views, Clock.fixed(T0, ZoneOffset.UTC));
      FleetQueries.EventFilter f =
          new FleetQueries.EventFilter(true, null, null, null, null, "sub-2", null, null, null);
      List<String> found = new ArrayList<>();
      int pages =
          follow(
              cursor -> {
                Map<String, String> q = new HashMap<>(Map.of("limit", "50"));
                if (cursor != null) {
                  q.put("cursor", cursor);
                }
                return queries.events(f, FleetQueries.Page.of(q, FleetQueries.EVENTS));
              },
              page -> page.get("events").forEach(e -> found.add(e.get("eventId").asText())),
              KeyScans.AT_MOST + 50); // and the 50 VMs of what a page shows
      assertThat(found).as("keyed: " + keyed).containsExactly("E-299");
      assertThat(pages).as("keyed: " + keyed).isEqualTo(4);
    }
  }

  /**
   * A page of events by subscription reads the VMs of the events it shows within its budget too:
   * 1,001 events of 50 VMs, all in the subscription, a limit of 500. Before, the scan read one VM
   * an event (the first that matched) and the answer then read the 49 others of each event it
   * showed, 24,500 VM views a page outside the budget.
   */
  @Test
  void theVmsOfTheEventsAPageShowsAreReadWithinItsBudget() {
    MapStore<EventView> events = new MapStore<>();
    // The service's kept keys and silent agents (an event's silent agents are not read from the
    // VMs' views)
    dev.sebridge.fleet.ViewTallies keys = new dev.sebridge.fleet.ViewTallies();
    for (int r = 0; r <= 1000; r++) {
      Map<String, VmEventState> parts = new HashMap<>();
      for (int v = 0; v < 50; v++) {
        String id = String.format("vm-%04d-%02d", r, v);
        parts.put(id, new VmEventState(id, id, "1", null, "scheduled", null, T0, null));
        vms.map.put(id, vm(id, "1"));
        keys.keyChanged(dev.sebridge.fleet.streams.FleetTopology.VMS_VIEW, id, vms.map.get(id));
      }
      String key = String.format("e-%04d", r);
      events.map.put(key, ListFixtures.event(key, "Reboot", "Platform", parts));
      keys.keyChanged(
          dev.sebridge.fleet.streams.FleetTopology.EVENTS_VIEW, key, events.map.get(key));
    }
    FleetQueries queries =
        new FleetQueries(
            new FleetViews(() -> vms, () -> events, () -> requests, () -> null, () -> null)
                .withKeys(keys),
            Clock.fixed(T0, ZoneOffset.UTC));
    FleetQueries.EventFilter f =
        new FleetQueries.EventFilter(null, null, null, null, null, "sub-1", null, null, null);
    List<String> found = new ArrayList<>();
    follow(
        cursor -> {
          Map<String, String> q = new HashMap<>(Map.of("limit", "500"));
          if (cursor != null) {
            q.put("cursor", cursor);
          }
          return queries.events(f, FleetQueries.Page.of(q, FleetQueries.EVENTS));
        },
        page -> page.get("events").forEach(e -> found.add(e.get("eventId").asText())),
        KeyScans.AT_MOST);
    assertThat(found).hasSize(1001).doesNotHaveDuplicates().isSorted();
  }

  /**
   * A record that names more VMs than are left of a page's budget is tested first on the next page,
   * whole: 98 requests of 50 VMs in zone 1, then one of 20,000 VMs, the last in zone 3, and ten of
   * one VM in zone 3. The first page stops before the large one, within its budget; the next tests
   * it (a page always tests one record, however large), and every request of zone 3 is listed once.
   * Before, the first page read the large one's 20,000 VMs on top of the 4,900.
   */
  @Test
  void aRecordNamingMoreVmsThanTheBudgetLeftStartsTheNextPage() {
    for (int r = 0; r < 109; r++) {
      List<String> ids = new ArrayList<>();
      int count = r < 98 ? 50 : r == 98 ? 20_000 : 1;
      for (int v = 0; v < count; v++) {
        String id = String.format("vm-%03d-%05d", r, v);
        ids.add(id);
        // (the large one's last VM only in zone 3: its test reads all 20,000)
        vms.map.put(id, vm(id, r < 98 || v < count - 1 ? "1" : "3"));
      }
      putRequest(String.format("r-%03d", r), ids);
    }
    FleetQueries queries = approvalQueries();
    List<String> found = new ArrayList<>();
    List<Integer> reads = new ArrayList<>();
    String cursor = null;
    do {
      int before = vms.gets.size();
      Map<String, String> q = new HashMap<>(Map.of("zone", "3", "limit", "50"));
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      ObjectNode page = queries.approvals(q);
      reads.add(vms.gets.size() - before);
      page.get("approvals").forEach(a -> found.add(a.get("request").get("requestId").asText()));
      cursor = page.hasNonNull("next") ? page.get("next").asText() : null;
    } while (cursor != null && reads.size() < 10);
    assertThat(reads.get(0)).isLessThanOrEqualTo(KeyScans.AT_MOST);
    assertThat(found)
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(98, 109)
                .mapToObj(r -> String.format("r-%03d", r))
                .toList());
  }

  /**
   * Approvals by their event's type and source, as the events view has the event: 30 requests of 10
   * events (Freeze and Reboot, Platform and User), each event read once a page, and a request whose
   * event the views no longer hold listed by neither.
   */
  @Test
  void approvalsByTheirEventsTypeAndSource() {
    MapStore<EventView> events = new MapStore<>();
    for (int e = 0; e < 10; e++) {
      String key = String.format("e-%02d", e);
      events.map.put(
          key,
          ListFixtures.event(
              key, e % 2 == 0 ? "Freeze" : "Reboot", e % 3 == 0 ? "User" : "Platform", Map.of()));
    }
    for (int r = 0; r < 30; r++) { // each of one of the ten events, r-029 of one gone
      String id = String.format("r-%03d", r);
      requests.map.put(
          id,
          ListFixtures.request(
              id, r == 29 ? "E-GONE" : String.format("E-%02d", r % 10), List.of("vm-" + r)));
    }
    FleetQueries queries =
        new FleetQueries(
            new FleetViews(() -> vms, () -> events, () -> requests, () -> null, () -> null),
            Clock.fixed(T0, ZoneOffset.UTC));

    ObjectNode reboots = queries.approvals(Map.of("type", "reboot"));
    List<String> ids = new ArrayList<>();
    reboots.get("approvals").forEach(a -> ids.add(a.get("request").get("eventId").asText()));
    // (the odd events' requests, r-001 to r-027: r-029's event is gone)
    assertThat(ids).hasSize(14).allMatch(e -> Integer.parseInt(e.substring(2)) % 2 == 1);
    assertThat(events.gets).as("each event read once").hasSize(11).doesNotHaveDuplicates();

    ObjectNode userFreezes = queries.approvals(Map.of("type", "Freeze", "source", "user"));
    List<String> both = new ArrayList<>();
    userFreezes.get("approvals").forEach(a -> both.add(a.get("request").get("eventId").asText()));
    // events 0 and 6 are Freeze and User; r-029's event is gone
    assertThat(both).containsExactly("E-00", "E-06", "E-00", "E-06", "E-00", "E-06");
  }

  /**
   * The event views a type filter reads count against the page's budget: 6,000 requests, each of an
   * event of its own, all Reboots. Each page reads at most 5,000 records, requests and events
   * together (2,500 of each), and following {@code next} lists every request once. A request of no
   * event is of no type, and does not stop the list.
   */
  @Test
  void theEventsATypeFilterReadsCountAgainstThePagesBudget() {
    MapStore<EventView> events = new MapStore<>();
    for (int r = 0; r < 6_000; r++) {
      String id = String.format("r-%04d", r);
      putRequest(id, List.of("vm-" + r));
      String key = "e-" + id;
      events.map.put(key, ListFixtures.event(key, "Reboot", "Platform", Map.of()));
    }
    requests.map.put("r-0000a", ListFixtures.request("r-0000a", null, List.of("vm-1")));
    FleetQueries queries =
        new FleetQueries(
            new FleetViews(() -> vms, () -> events, () -> requests, () -> null, () -> null),
            Clock.fixed(T0, ZoneOffset.UTC));
    List<String> found = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      int eventsBefore = events.gets.size();
      int scannedBefore = requests.iterated.get();
      Map<String, String> q = new HashMap<>(Map.of("type", "reboot", "limit", "1000"));
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      ObjectNode page = queries.approvals(q);
      assertThat((events.gets.size() - eventsBefore) + (requests.iterated.get() - scannedBefore))
          .as("page %d: requests and events read", pages + 1)
          .isLessThanOrEqualTo(KeyScans.AT_MOST);
      page.get("approvals").forEach(a -> found.add(a.get("request").get("requestId").asText()));
      cursor = page.hasNonNull("next") ? page.get("next").asText() : null;
      pages++;
    } while (cursor != null && pages < 100);
    assertThat(found).hasSize(6_000).doesNotHaveDuplicates().isSorted();
  }

  private void putRequest(String requestId, List<String> vmIds) {
    requests.map.put(requestId, ListFixtures.request(requestId, "E-" + requestId, vmIds));
  }

  private FleetQueries approvalQueries() {
    return new FleetQueries(
        new FleetViews(() -> vms, () -> new MapStore<>(), () -> requests, () -> null, () -> null),
        Clock.fixed(T0, ZoneOffset.UTC));
  }

  /**
   * Follows {@code next} from the first page to the last, each page taken in by {@code found}; none
   * may read more than {@code most} VM views. How many pages there were.
   */
  private int follow(
      java.util.function.Function<String, ObjectNode> page,
      java.util.function.Consumer<ObjectNode> found,
      int most) {
    int pages = 0;
    String cursor = null;
    do {
      int readBefore = vms.gets.size();
      ObjectNode p = page.apply(cursor);
      assertThat(vms.gets.size() - readBefore).as("page %d", pages + 1).isLessThanOrEqualTo(most);
      found.accept(p);
      cursor = p.hasNonNull("next") ? p.get("next").asText() : null;
      pages++;
    } while (cursor != null);
    return pages;
  }

  private static VmView vm(String id, String zone) {
    return ListFixtures.vm(id, zone, "sub-1");
  }

  private static VmView vm(String id, String zone, String subscription) {
    return ListFixtures.vm(id, zone, subscription);
  }
}
