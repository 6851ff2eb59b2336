package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.fleet.rollout.RolloutParts;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.RolloutVm;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * {@code GET /api/rollouts} by its events' type and source and by where its VMs are, paged: over
 * random worlds (rollouts stored in parts, or whole, or written whole before rollouts were split
 * beside split ones; events and VMs the views no longer hold; a report wait outliving an event no
 * longer rolled out; a rollout of 6,000 VMs; with a state or an event asked for besides), every
 * page lists exactly what a brute force over the rollouts finds, in order, and reads at most its
 * budget or its first rollout whole.
 */
class RolloutFiltersTest {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");
  static final List<String> TYPES = List.of("Reboot", "Freeze", "Redeploy");
  static final List<String> SOURCES = List.of("Platform", "User");

  final MapStore<Rollout> headers = new MapStore<>();
  final MapStore<RolloutPart> parts = new MapStore<>();
  final MapStore<VmView> vms = new MapStore<>();
  final MapStore<EventView> events = new MapStore<>();
  // Across tries: pages that stopped on their budget with room left for more rollouts.
  static int stoppedOnBudget;

  @Property(tries = 100)
  void everyPageListsWhatABruteForceFindsWithinItsBudget(@ForAll long seed) {
    Random rnd = new Random(seed);
    for (MapStore<?> s : List.of(headers, parts, vms, events)) {
      s.map.clear(); // (the container's fields outlive a try)
      s.gets.clear();
      s.iterated.set(0);
      s.ranges.clear();
    }
    boolean split = rnd.nextInt(4) != 0;
    for (int i = 0; i < 60; i++) {
      if (rnd.nextInt(5) != 0) {
        vms.map.put("vm-" + i, vm(rnd, "vm-" + i));
      }
    }
    for (int e = 0; e < 20; e++) {
      if (rnd.nextInt(4) != 0) {
        events.map.put(
            "e-" + e,
            ListFixtures.event(
                "e-" + e,
                TYPES.get(rnd.nextInt(TYPES.size())),
                SOURCES.get(rnd.nextInt(SOURCES.size())),
                Map.of()));
      }
    }
    Map<String, Rollout> whole = new TreeMap<>();
    Set<String> legacy = new java.util.HashSet<>(); // written whole before rollouts were split
    for (int r = 0; r < 20 + rnd.nextInt(60); r++) {
      Rollout ro = rollout(rnd, r, rnd.nextInt(12) == 0 ? 6_000 : rnd.nextInt(6));
      whole.put(ro.id(), ro);
      if (split && rnd.nextInt(5) != 0) {
        headers.map.put(ro.id(), RolloutParts.header(ro));
        parts.map.putAll(RolloutParts.parts(ro));
      } else {
        headers.map.put(ro.id(), ro);
        legacy.add(ro.id());
      }
    }
    Map<String, String> query = new HashMap<>();
    do {
      if (rnd.nextBoolean()) {
        query.put("type", TYPES.get(rnd.nextInt(TYPES.size())).toLowerCase(Locale.ROOT));
      }
      if (rnd.nextInt(3) == 0) {
        query.put("source", SOURCES.get(rnd.nextInt(SOURCES.size())));
      }
      if (rnd.nextBoolean()) {
        query.put("zone", String.valueOf(1 + rnd.nextInt(3)));
      }
      if (rnd.nextInt(3) == 0) {
        query.put("scaleSet", rnd.nextBoolean() ? "SS-A" : "ss-b");
      }
      if (rnd.nextInt(3) == 0) {
        query.put("resourceGroup", rnd.nextBoolean() ? "rg-x" : "rg-y");
      }
    } while (query.isEmpty());
    // Beside the filters the page tests first (the state, an event it holds).
    if (rnd.nextInt(3) == 0) {
      query.put("state", Rollout.State.values()[rnd.nextInt(2)].toString());
    }
    if (rnd.nextInt(4) == 0) {
      query.put("eventId", (rnd.nextBoolean() ? "E-" : "e-") + rnd.nextInt(20));
    }
    String asked = query.get("eventId");
    List<String> expected =
        whole.values().stream()
            .filter(r -> matches(r, query))
            .filter(
                r -> !query.containsKey("state") || r.state().toString().equals(query.get("state")))
            .filter(
                r ->
                    asked == null
                        || r.spec().eventIds().stream().anyMatch(asked::equalsIgnoreCase)
                        || !legacy.contains(r.id())
                            && r.unreported().keySet().stream().anyMatch(asked::equalsIgnoreCase))
            .map(Rollout::id)
            .toList();

    RolloutApi api =
        new RolloutApi(
            null,
            new FleetViews(
                () -> vms,
                () -> events,
                MapStore::new,
                () -> headers,
                split ? () -> parts : null,
                MapStore::new),
            null,
            Clock.fixed(T0, ZoneOffset.UTC));
    String limit = String.valueOf(1 + rnd.nextInt(30));
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Map<String, String> q = new HashMap<>(query);
      q.put("limit", limit);
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      int before = reads();
      int ranges = headers.ranges.size();
      ObjectNode page = api.list(q);
      int read = reads() - before;
      // The first rollout it examined: the first after where the page began.
      String from = headers.ranges.size() > ranges ? headers.ranges.get(ranges) : null;
      String first = from == null ? headers.map.firstKey() : headers.map.higherKey(from);
      int firstCost =
          first == null ? 0 : cost(whole.get(first), split && !legacy.contains(first), query);
      // Besides what the filter read, the answer puts each rollout it lists together.
      int shown = 0;
      for (var r : page.get("rollouts")) {
        listed.add(r.get("id").asText());
        shown += split ? RolloutParts.parts(whole.get(r.get("id").asText())).size() : 0;
      }
      assertThat(read - shown)
          .as("seed %d: a page reads its budget, or its first rollout whole", seed)
          // (+ 2: the store's range from the cursor reads the cursor's own rollout again, and
          // the page reads the header after its last before it stops)
          .isLessThanOrEqualTo(Math.max(KeyScans.AT_MOST, firstCost) + 2);
      cursor = page.hasNonNull("next") ? page.get("next").asText() : null;
      if (cursor != null && page.get("rollouts").size() < Integer.parseInt(limit)) {
        stoppedOnBudget++;
      }
      pages++;
    } while (cursor != null && pages < 1_000);
    assertThat(cursor).as("seed %d: next ends", seed).isNull();
    assertThat(listed).as("seed %d: %s", seed, query).containsExactlyElementsOf(expected);
  }

  @AfterContainer
  static void somePagesStoppedOnTheirBudget() {
    assertThat(stoppedOnBudget).as("pages that stopped on their budget").isPositive();
  }

  /**
   * The most a page's test of {@code r} reads: its header, its entries, its events' views (by type
   * or source), its VMs' views (by place).
   */
  private static int cost(Rollout r, boolean split, Map<String, String> q) {
    int n = 1; // (an eventId's entry is read by key, as the answer's: not among the scans)
    Set<String> keys = split ? RolloutParts.parts(r).keySet() : Set.of();
    if (q.containsKey("type") || q.containsKey("source")) {
      n += (int) keys.stream().filter(k -> k.contains("|e|")).count();
      n +=
          (int)
              r.spec().eventIds().stream().map(e -> e.toLowerCase(Locale.ROOT)).distinct().count();
    }
    if (q.containsKey("zone") || q.containsKey("scaleSet") || q.containsKey("resourceGroup")) {
      n += (int) keys.stream().filter(k -> k.contains("|v|")).count();
      n += vmIds(r).size();
    }
    return n;
  }

  /** What the stores were asked: VMs and events by key, rollouts and their entries scanned. */
  private int reads() {
    return vms.gets.size() + events.gets.size() + headers.iterated.get() + parts.iterated.get();
  }

  /** The brute force: an event of the rollout with the type and source, a VM in the place. */
  private boolean matches(Rollout r, Map<String, String> q) {
    String type = q.get("type");
    String source = q.get("source");
    boolean kind =
        type == null && source == null
            || r.spec().eventIds().stream()
                .map(id -> events.map.get(id.toLowerCase(Locale.ROOT)))
                .anyMatch(
                    e ->
                        e != null
                            && (type == null || type.equalsIgnoreCase(e.eventType()))
                            && (source == null || source.equalsIgnoreCase(e.eventSource())));
    String zone = q.get("zone");
    String scaleSet = q.get("scaleSet");
    String rg = q.get("resourceGroup");
    boolean place =
        zone == null && scaleSet == null && rg == null
            || vmIds(r).stream()
                .map(vms.map::get)
                .anyMatch(
                    v ->
                        v != null
                            && (zone == null || zone.equals(v.zone()))
                            && (scaleSet == null || scaleSet.equalsIgnoreCase(v.scaleSet()))
                            && (rg == null || rg.equalsIgnoreCase(v.resourceGroup())));
    return kind && place;
  }

  private static Set<String> vmIds(Rollout r) {
    Set<String> out = new LinkedHashSet<>();
    r.vms().values().forEach(v -> out.add(v.vmId()));
    return out;
  }

  private static VmView vm(Random rnd, String id) {
    VmView v = ListFixtures.vm(id, String.valueOf(1 + rnd.nextInt(3)), "sub");
    return new VmView(
        v.vmId(),
        v.name(),
        v.resourceId(),
        v.subscriptionId(),
        rnd.nextBoolean() ? "rg-x" : "RG-Y",
        v.location(),
        v.zone(),
        rnd.nextBoolean() ? "ss-a" : "ss-b",
        v.agentVersion(),
        v.lastEnvelopeAt(),
        v.lastSeenAt(),
        v.lastHeartbeatAt(),
        v.heartbeatIntervalSeconds(),
        v.polls(),
        v.silent(),
        v.openEvents(),
        v.inventory());
  }

  /** A rollout of 1 to 3 events and {@code n} VMs (of the views, or not). */
  private static Rollout rollout(Random rnd, int r, int n) {
    String id = String.format(Locale.ROOT, "ro-%03d", r);
    List<String> eventIds = new ArrayList<>();
    for (int e = 0; e < 1 + rnd.nextInt(3); e++) {
      String ev = (rnd.nextBoolean() ? "E-" : "e-") + rnd.nextInt(20);
      if (eventIds.stream().noneMatch(ev::equalsIgnoreCase)) {
        eventIds.add(ev);
      }
    }
    Map<String, RolloutVm> members = new TreeMap<>();
    for (int v = 0; v < n; v++) {
      // (a big rollout's VMs mostly without views, and a few of the fleet's among them)
      String vmId = n > 100 && v % 1_000 != 999 ? "big-" + v : "vm-" + rnd.nextInt(60);
      RolloutVm vm =
          new RolloutVm(
              vmId,
              vmId,
              eventIds.get(rnd.nextInt(eventIds.size())),
              "zone=1",
              RolloutVm.Phase.PENDING,
              false,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              false,
              null);
      members.put(vm.key(), vm);
    }
    return new Rollout(
        id,
        new RolloutSpec(eventIds, "10%", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
        "wave",
        "alice",
        "api",
        T0,
        Rollout.State.values()[rnd.nextInt(2)],
        null,
        Map.of(),
        members,
        List.of(),
        List.of(),
        // A report wait outliving an event no longer rolled out: not one of its events.
        rnd.nextInt(4) == 0 ? Map.of("e-" + rnd.nextInt(20), T0) : Map.of());
  }
}
