package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * A campaign's counts as an answer computes them ({@link CampaignView}: its open events' views, its
 * closed events' tallies kept by the index, never their views) against the same counts recomputed
 * by brute force over every view of its events ({@link Campaigns#of}), after every change of random
 * histories: events of two kinds whose VMs (shared between events, in three zones and scale sets
 * spelt in two cases) move through every status, close, reopen, are deleted, and whose agents go
 * silent and come back.
 */
class CampaignCountsTest {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");
  static final List<String> STATUSES =
      List.of("scheduled", "approved", "started", "completed", "canceled", "inferred");
  static final List<String> SETS = List.of("ss-a", "SS-A", "ss-b", "SS-B");

  @Property(tries = 200)
  void theCountsAreThoseOfEveryViewReadWhole(@ForAll long seed) {
    Random random = new Random(seed);
    MapStore<EventView> events = new MapStore<>();
    CampaignIndex index = new CampaignIndex();
    FleetViews views =
        new FleetViews(() -> null, () -> events, () -> null, () -> null, () -> null)
            .withCampaigns(index);
    Set<String> silent = new HashSet<>();
    int steps = 20 + random.nextInt(100);
    for (int step = 0; step < steps; step++) {
      String key = "ev-" + random.nextInt(30);
      EventView after = change(random, key, events.map.get(key), step);
      if (after == null) {
        events.map.remove(key);
      } else {
        events.map.put(key, after);
      }
      index.keyChanged(FleetTopology.EVENTS_VIEW, key, after);
      String vm = "vm-" + random.nextInt(12);
      if (!silent.remove(vm) && random.nextBoolean()) {
        silent.add(vm);
      }
      Map<String, Campaigns.Campaign> whole = new LinkedHashMap<>();
      Campaigns.of(events.map.values()).forEach(c -> whole.put(c.id(), c));
      for (CampaignIndex.Members m : index.campaigns()) {
        events.gets.clear();
        CampaignView read = Campaigns.read(m, views).orElseThrow();
        Campaigns.Campaign c = whole.get(m.id());
        assertThat(read.json()).as("seed %d, step %d", seed, step).isEqualTo(json(c));
        assertThat(shown(read, silent))
            .as("seed %d, step %d", seed, step)
            .isEqualTo(shown(c, silent));
        // Only its open events' views were read (here they are not kept: read by key).
        assertThat(events.gets)
            .as("seed %d, step %d", seed, step)
            .containsExactlyInAnyOrderElementsOf(
                m.events().stream()
                    .filter(CampaignIndex.Sighting::open)
                    .map(s -> s.key())
                    .toList());
      }
    }
  }

  /**
   * A campaign of 500 closed events and one open one: its answer reads one view, the open one's,
   * and counts the 500 from the index. Before, it read and parsed all 501.
   */
  @Test
  void aCampaignCountsItsClosedEventsWithoutReadingThem() {
    MapStore<EventView> events = new MapStore<>();
    CampaignIndex index = new CampaignIndex();
    for (int i = 0; i <= 500; i++) {
      String key = "ev-" + i;
      String status = i < 500 ? "completed" : "scheduled";
      EventView e =
          event(
              key,
              "Reboot",
              T0.plusSeconds(3600 + i),
              T0.plusSeconds(i),
              i < 500 ? T0.plusSeconds(7200) : null,
              Map.of("vm-" + i, part("vm-" + i, String.valueOf(1 + i % 3), "ss-a", status)));
      events.map.put(key, e);
      index.keyChanged(FleetTopology.EVENTS_VIEW, key, e);
    }
    FleetViews views =
        new FleetViews(() -> null, () -> events, () -> null, () -> null, () -> null)
            .withCampaigns(index);

    CampaignView c = Campaigns.read(index.campaigns().get(0), views).orElseThrow();
    ObjectNode json = c.json();

    assertThat(events.gets).containsExactly("ev-500");
    assertThat(events.scans).hasValue(0);
    assertThat(json.get("events").asInt()).isEqualTo(501);
    assertThat(json.get("openEvents").asInt()).isEqualTo(1);
    assertThat(json.get("counts").toString()).isEqualTo("{\"completed\":500,\"scheduled\":1}");
    assertThat(json.get("zones").toString()).isEqualTo("{\"1\":167,\"2\":167,\"3\":167}");
    assertThat(json).isEqualTo(json(Campaigns.of(events.map.values()).get(0)));
  }

  /**
   * A closed event that changes between the list and the read of its campaign is read as it is now:
   * one deleted (retention) is left out, one reopened is counted open and rolled out. Before, its
   * tally from the list was taken as it stood: the deleted one counted, and a campaign whose only
   * open event was the reopened one read as closed (gone from the lists, its rollout refused).
   */
  @Test
  void aClosedEventThatChangedSinceTheListIsReadAsItIsNow() {
    MapStore<EventView> events = new MapStore<>();
    CampaignIndex index = new CampaignIndex();
    FleetViews views =
        new FleetViews(() -> null, () -> events, () -> null, () -> null, () -> new MapStore<>())
            .withCampaigns(index);
    java.util.function.BiConsumer<String, EventView> put =
        (key, e) -> {
          if (e == null) {
            events.map.remove(key);
          } else {
            events.map.put(key, e);
          }
          index.keyChanged(FleetTopology.EVENTS_VIEW, key, e);
        };
    for (int i = 0; i < 3; i++) {
      put.accept(
          "ev-" + i,
          event(
              "ev-" + i,
              "Reboot",
              T0.plusSeconds(3600),
              T0.plusSeconds(i),
              T0.plusSeconds(60),
              Map.of("vm-" + i, part("vm-" + i, "1", "ss-a", "completed"))));
    }
    CampaignIndex.Members listed = index.campaigns().get(0);
    assertThat(Campaigns.read(listed, views).orElseThrow().isOpen()).isFalse();

    put.accept("ev-0", null); // retention
    put.accept(
        "ev-1",
        event(
            "ev-1",
            "Reboot",
            T0.plusSeconds(3600),
            T0.plusSeconds(1),
            null,
            Map.of("vm-1", part("vm-1", "1", "ss-a", "scheduled"))));
    CampaignView read = Campaigns.read(listed, views).orElseThrow();

    assertThat(read.eventIds()).containsExactly("EV-1", "EV-2");
    assertThat(read.isOpen()).isTrue();
    assertThat(Campaigns.rollable(read, views)).containsExactly("EV-1");
    // (its id is the listed one's: the campaign's first event went after the list was taken)
    ObjectNode now = read.json();
    ObjectNode whole = json(Campaigns.of(events.map.values()).get(0));
    now.remove("campaignId");
    whole.remove("campaignId");
    assertThat(now).isEqualTo(whole);
  }

  /** A change an event view can see; null: deleted. */
  private static EventView change(Random random, String key, EventView before, int step) {
    if (before == null || random.nextInt(12) == 0) {
      if (before != null && random.nextBoolean()) {
        return null; // retention
      }
      Map<String, VmEventState> parts = new LinkedHashMap<>();
      int vms = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(4);
      for (int v = 0; v < vms; v++) {
        String vm = "vm-" + random.nextInt(12);
        parts.put(vm, part(random, vm, "scheduled"));
      }
      return event(
          key,
          random.nextInt(3) == 0 ? "Freeze" : "Reboot",
          random.nextInt(4) == 0 ? null : T0.plus(Duration.ofHours(random.nextInt(48))),
          T0.plus(Duration.ofMinutes(step * (long) (1 + random.nextInt(30)))),
          null,
          parts);
    }
    // A VM moves on (or, rarely, back); the event closes when every part has.
    Map<String, VmEventState> parts = new LinkedHashMap<>(before.vms());
    if (!parts.isEmpty()) {
      String vm = new ArrayList<>(parts.keySet()).get(random.nextInt(parts.size()));
      parts.put(vm, part(random, vm, STATUSES.get(random.nextInt(STATUSES.size()))));
    }
    boolean closed = !parts.isEmpty() && parts.values().stream().allMatch(VmEventState::closed);
    Instant notBefore =
        random.nextInt(4) == 0
            ? T0.plus(Duration.ofMinutes(random.nextInt(3000)))
            : before.notBefore();
    return event(
        key,
        before.eventType(),
        notBefore,
        before.firstSeenAt(),
        closed ? T0.plusSeconds(step) : null,
        parts);
  }

  private static VmEventState part(Random random, String vm, String status) {
    return new VmEventState(
        vm,
        vm,
        random.nextInt(5) == 0 ? null : String.valueOf(1 + random.nextInt(3)),
        random.nextInt(5) == 0 ? null : SETS.get(random.nextInt(SETS.size())),
        status,
        status.equals("inferred")
            ? List.of("completed", "canceled", "vanished").get(random.nextInt(3))
            : null,
        T0,
        null);
  }

  private static VmEventState part(String vm, String zone, String set, String status) {
    return new VmEventState(vm, vm, zone, set, status, null, T0, null);
  }

  private static EventView event(
      String key,
      String type,
      Instant notBefore,
      Instant firstSeenAt,
      Instant closedAt,
      Map<String, VmEventState> parts) {
    return new EventView(
        key.toUpperCase(Locale.ROOT),
        type,
        "Platform",
        notBefore,
        -1,
        "Host update",
        List.of(),
        firstSeenAt,
        firstSeenAt,
        closedAt,
        parts,
        null,
        null);
  }

  /**
   * The API's summary by brute force, over every view of the campaign's events (what {@code
   * Campaigns.json} computed until every closed event's view was no longer read).
   */
  static ObjectNode json(Campaigns.Campaign c) {
    ObjectNode n = JsonSerde.JSON.createObjectNode();
    n.put("campaignId", c.id());
    n.put("eventType", c.type());
    n.put("eventSource", c.source());
    n.put("description", c.description());
    n.put("firstSeenAt", str(c.events().get(0).firstSeenAt()));
    n.put("lastSeenAt", str(c.events().get(c.events().size() - 1).firstSeenAt()));
    n.put(
        "nextNotBefore",
        str(
            c.events().stream()
                .filter(EventView::open)
                .map(EventView::notBefore)
                .filter(Objects::nonNull)
                .min(Comparator.naturalOrder())
                .orElse(null)));
    n.put("events", c.events().size());
    n.put("openEvents", (int) c.events().stream().filter(EventView::open).count());
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, Integer> zones = new TreeMap<>();
    Map<String, Integer> scaleSets = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    int vms = 0;
    for (EventView e : c.events()) {
      for (VmEventState v : e.vms().values()) {
        vms++;
        counts.merge(v.status(), 1, Integer::sum);
        zones.merge(Objects.requireNonNullElse(v.zone(), "-"), 1, Integer::sum);
        scaleSets.merge(Objects.requireNonNullElse(v.scaleSet(), "-"), 1, Integer::sum);
      }
    }
    n.put("vmCount", vms);
    n.set("counts", JsonSerde.JSON.valueToTree(counts));
    n.set("zones", JsonSerde.JSON.valueToTree(zones));
    n.set("scaleSets", JsonSerde.JSON.valueToTree(scaleSets));
    return n;
  }

  /** The page's counts as the service computes them, written out to compare. */
  private static String shown(CampaignView c, Set<String> silent) {
    CampaignView.Counts counts =
        c.counts(p -> p.shown(!p.closed() && silent.contains(p.vmId())), "none");
    return counts.parts()
        + " parts, "
        + counts.vms()
        + " VMs, "
        + counts.byStatus()
        + " "
        + counts.byZone()
        + " "
        + spelt(counts.byScaleSet());
  }

  /** The same by brute force over every view (the page's code until closed views were not read). */
  private static String shown(Campaigns.Campaign c, Set<String> silent) {
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, Map<String, Integer>> byZone = new TreeMap<>();
    Map<String, Map<String, Integer>> bySet = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    int total = 0;
    Set<String> distinct = new HashSet<>();
    for (EventView e : c.events()) {
      for (VmEventState s : e.vms().values()) {
        String status =
            silent.contains(s.vmId()) && !s.closed()
                ? "silent"
                : s.status().equals("inferred")
                    ? Objects.requireNonNullElse(s.guess(), "completed")
                    : s.status();
        total++;
        distinct.add(s.vmId());
        counts.merge(status, 1, Integer::sum);
        byZone
            .computeIfAbsent(Objects.requireNonNullElse(s.zone(), "none"), z -> new TreeMap<>())
            .merge(status, 1, Integer::sum);
        bySet
            .computeIfAbsent(Objects.requireNonNullElse(s.scaleSet(), "none"), z -> new TreeMap<>())
            .merge(status, 1, Integer::sum);
      }
    }
    return total
        + " parts, "
        + distinct.size()
        + " VMs, "
        + counts
        + " "
        + byZone
        + " "
        + spelt(bySet);
  }

  /** A case-insensitive map written with the spelling each key was first put in. */
  private static String spelt(Map<String, Map<String, Integer>> bySet) {
    return bySet.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList().toString();
  }

  private static String str(Instant t) {
    return t == null ? null : t.toString();
  }
}
