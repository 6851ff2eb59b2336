package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@code GET /api/approvals} paged while requests come and go between pages (as the requests' view
 * changes under a reader who pages through it), filtered by where their VMs are or not: requests of
 * up to 600 VMs, so that pages end on the budget of what they read ({@link KeyScans#AT_MOST}) as
 * well as on their limit. Whatever happens, a request that matches and is present from the first
 * page to the last is listed exactly once, nothing is listed twice, every request listed matches,
 * pages are in request id order, and following {@code next} ends.
 */
class ApprovalPagingTest {
  static final Instant T0 = ListFixtures.T0;

  final MapStore<VmView> vms = new MapStore<>();
  final MapStore<RequestView> requests = new MapStore<>();
  final Map<String, String> zones = new HashMap<>();

  /** The fleet's VMs: enough that a page's reads, each VM once, reach its budget. */
  static final int VMS = 12_000;

  /** Their zones: a request of a few VMs is mostly of other zones than the filter's. */
  static final int ZONES = 12;

  /** Tries whose pages read more than half their budget (the worlds are large enough to). */
  static final java.util.concurrent.atomic.AtomicInteger BUDGET_REACHED =
      new java.util.concurrent.atomic.AtomicInteger();

  boolean budgetReached;
  boolean listedOutside;

  /** The runs drew worlds whose pages end on their budget, not only on their limit. */
  @net.jqwik.api.lifecycle.AfterContainer
  static void somePagesReadMoreThanHalfTheirBudget() {
    assertThat(BUDGET_REACHED.get()).isPositive();
  }

  @Property(tries = 40)
  void aRequestPresentThroughoutIsListedExactlyOnce(@ForAll long seed) {
    Random rnd = new Random(seed);
    // (the container's fields outlive a try: each try's world from nothing)
    vms.map.clear();
    vms.gets.clear();
    requests.map.clear();
    zones.clear();
    budgetReached = false;
    listedOutside = false;
    for (int v = 0; v < VMS; v++) {
      String id = String.format("vm-%05d", v);
      zones.put(id, String.valueOf(1 + v % ZONES));
      vms.map.put(id, vm(id, zones.get(id)));
    }
    for (int r = 0; r < 150; r++) {
      put(rnd, r);
    }
    FleetQueries queries =
        new FleetQueries(
            new FleetViews(
                () -> vms, () -> new MapStore<>(), () -> requests, () -> null, () -> null),
            Clock.fixed(T0, ZoneOffset.UTC));
    String zone = rnd.nextInt(4) == 0 ? null : String.valueOf(1 + rnd.nextInt(ZONES));
    String limit = String.valueOf(1 + rnd.nextInt(100));

    Set<String> throughout = new TreeSet<>(requests.map.keySet());
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Map<String, String> q = new HashMap<>(Map.of("limit", limit));
      if (zone != null) {
        q.put("zone", zone);
      }
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      int before = vms.gets.size();
      ObjectNode page = queries.approvals(q);
      budgetReached |= vms.gets.size() - before > KeyScans.AT_MOST / 2;
      assertThat(vms.gets.size() - before)
          .as("seed %d: a page reads its budget, or its first request's VMs", seed)
          .isLessThanOrEqualTo(Math.max(KeyScans.AT_MOST, 600));
      page.get("approvals")
          .forEach(
              a -> {
                listed.add(a.get("request").get("requestId").asText());
                // (as listed: the request may change after)
                boolean inZone = false;
                for (var vm : a.get("request").get("vmIds")) {
                  inZone |= zone == null || zone.equals(zones.get(vm.asText()));
                }
                listedOutside |= !inZone;
              });
      cursor = page.hasNonNull("next") ? page.get("next").asText() : null;
      pages++;
      // Between pages: requests come (any id, before or after the cursor) and go.
      for (int change = rnd.nextInt(6); change > 0; change--) {
        if (rnd.nextBoolean()) {
          throughout.remove(put(rnd, rnd.nextInt(300)));
        } else {
          String gone =
              new ArrayList<>(requests.map.keySet()).get(rnd.nextInt(requests.map.size()));
          requests.map.remove(gone);
          throughout.remove(gone);
        }
      }
    } while (cursor != null && pages < 1_000);

    assertThat(cursor).as("seed %d: next ends", seed).isNull();
    if (budgetReached) {
      BUDGET_REACHED.incrementAndGet();
    }
    assertThat(listed).as("seed %d", seed).doesNotHaveDuplicates().isSorted();
    assertThat(listedOutside)
        .as("seed %d: each listed request names a VM of the zone", seed)
        .isFalse();
    Set<String> expected = new HashSet<>();
    throughout.stream().filter(id -> zone == null || matches(id, zone)).forEach(expected::add);
    assertThat(listed).as("seed %d", seed).containsAll(expected);
  }

  private boolean matches(String requestId, String zone) {
    return requests.map.get(requestId).request().vmIds().stream()
        .anyMatch(id -> zone.equals(zones.get(id)));
  }

  /** A request of 1 to 600 VMs, put (or put again, other VMs) as {@code r-NNN}; its id. */
  private String put(Random rnd, int r) {
    String requestId = String.format("r-%03d", r);
    List<String> ids = new ArrayList<>();
    int count = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 600 : 20);
    // Most requests' VMs in one zone (a wave's, grouped by zone), a few anywhere.
    int zone = rnd.nextInt(5) == 0 ? -1 : rnd.nextInt(ZONES);
    for (int v = 0; v < count; v++) {
      int vm = rnd.nextInt(VMS);
      ids.add(String.format("vm-%05d", zone < 0 ? vm : vm - vm % ZONES + zone));
    }
    requests.map.put(requestId, ListFixtures.request(requestId, "E-" + r, ids));
    return requestId;
  }

  private static VmView vm(String id, String zone) {
    return ListFixtures.vm(id, zone, "sub-1");
  }
}
