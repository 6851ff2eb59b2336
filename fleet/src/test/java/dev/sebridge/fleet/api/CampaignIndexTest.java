package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The campaigns kept change by change ({@link CampaignIndex}) against their definition ({@link
 * Campaigns#of}) recomputed from scratch over the same views, after every change of random
 * histories: events of a few kinds first seen minutes to hours apart (across the window and the
 * span), closed, their NotBefore moved or dropped, their VMs' statuses changed, deleted
 * (retention), seen by Azure's delivery only (no VM), or never seen at all.
 */
class CampaignIndexTest {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");
  static final List<String> DESCRIPTIONS = List.of("Host update", "Host update ", "Reboot for KB");

  @Property(tries = 200)
  void theKeptCampaignsAreThoseOfAScanAfterEveryChange(@ForAll long seed) {
    Random random = new Random(seed);
    Map<String, EventView> views = new HashMap<>();
    CampaignIndex index = new CampaignIndex();
    int steps = 20 + random.nextInt(120);
    for (int step = 0; step < steps; step++) {
      String key = "ev-" + random.nextInt(40);
      EventView before = views.get(key);
      EventView after = change(random, key, before, step);
      if (after == null) {
        views.remove(key);
      } else {
        views.put(key, after);
      }
      index.keyChanged(FleetTopology.EVENTS_VIEW, key, after);
      if (random.nextInt(5) == 0) {
        index.keyChanged(FleetTopology.VMS_VIEW, key, null); // another view's change: no effect
      }
      assertThat(described(index.campaigns()))
          .as("seed %d, step %d", seed, step)
          .isEqualTo(definition(views));
    }
  }

  /** A change an event view can see; null: deleted. */
  private static EventView change(Random random, String key, EventView before, int step) {
    int what = random.nextInt(10);
    if (before == null || what == 0) {
      if (what == 0 && before != null) {
        return null; // retention
      }
      Instant seen =
          random.nextInt(15) == 0
              ? null
              : T0.plus(Duration.ofMinutes(step * (long) (1 + random.nextInt(90))));
      return event(
          key,
          random.nextInt(3) == 0 ? "Freeze" : "Reboot",
          DESCRIPTIONS.get(random.nextInt(DESCRIPTIONS.size())),
          random.nextInt(4) == 0 ? null : T0.plus(Duration.ofHours(random.nextInt(48))),
          seen,
          null,
          random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(3),
          "scheduled");
    }
    return switch (what) {
      case 1, 2 -> with(before, before.notBefore(), T0.plusSeconds(step), "completed"); // closed
      case 3, 4 ->
          with(
              before,
              random.nextBoolean() ? null : T0.plus(Duration.ofMinutes(random.nextInt(3000))),
              before.closedAt(),
              "started");
      default -> with(before, before.notBefore(), before.closedAt(), "started"); // a VM moved on
    };
  }

  private static EventView with(EventView e, Instant notBefore, Instant closedAt, String status) {
    return event(
        e.eventId().toLowerCase(Locale.ROOT),
        e.eventType(),
        e.description(),
        notBefore,
        e.firstSeenAt(),
        closedAt,
        e.vms().size(),
        status);
  }

  private static EventView event(
      String key,
      String type,
      String description,
      Instant notBefore,
      Instant firstSeenAt,
      Instant closedAt,
      int vms,
      String status) {
    Map<String, VmEventState> states = new HashMap<>();
    for (int v = 0; v < vms; v++) {
      String vm = key + "-vm-" + v;
      states.put(vm, new VmEventState(vm, vm, "1", "ss", status, null, T0, null));
    }
    return new EventView(
        key.toUpperCase(Locale.ROOT),
        type,
        "Platform",
        notBefore,
        -1,
        description,
        List.of(),
        firstSeenAt,
        firstSeenAt,
        closedAt,
        states,
        null,
        null);
  }

  /** Each campaign as id, its events' ids in order, and its soonest open NotBefore. */
  private static List<String> described(List<CampaignIndex.Members> campaigns) {
    List<String> out = new ArrayList<>();
    for (CampaignIndex.Members m : campaigns) {
      out.add(
          m.id()
              + " "
              + m.events().stream().map(CampaignIndex.Sighting::eventId).toList()
              + " open="
              + m.open()
              + " soonest="
              + m.soonest());
    }
    return out;
  }

  /** The same from {@link Campaigns#of} over every view (the page's soonest, as it computes it). */
  private static List<String> definition(Map<String, EventView> views) {
    List<String> out = new ArrayList<>();
    for (Campaigns.Campaign c : Campaigns.of(views.values())) {
      Instant soonest =
          c.events().stream()
              .filter(EventView::open)
              .map(e -> e.notBefore() == null ? Instant.MIN : e.notBefore())
              .min(Instant::compareTo)
              .orElse(Instant.MAX);
      out.add(
          c.id()
              + " "
              + c.events().stream().map(EventView::eventId).toList()
              + " open="
              + c.open()
              + " soonest="
              + soonest);
    }
    return out;
  }

  /**
   * A campaign answer reads the views of its own events only: of 300 events of three kinds, the
   * campaign of 100 reads 100 (the open ones as kept would read none; here the views have no kept
   * ones), and the list of campaigns none at all.
   */
  @Test
  void aCampaignReadsItsOwnEventsOnly() {
    MapStore<EventView> events = new MapStore<>();
    CampaignIndex index = new CampaignIndex();
    for (int i = 0; i < 300; i++) {
      String key = "ev-" + i;
      EventView e =
          event(
              key,
              "Reboot",
              DESCRIPTIONS.get(i % 3),
              T0.plusSeconds(i),
              T0.plusSeconds(i),
              null,
              1,
              "scheduled");
      events.map.put(key, e);
      index.keyChanged(FleetTopology.EVENTS_VIEW, key, e);
    }
    FleetViews views =
        new FleetViews(() -> null, () -> events, () -> null, () -> null, () -> null)
            .withCampaigns(index);

    List<CampaignIndex.Members> campaigns = views.campaigns().campaigns();
    assertThat(campaigns).hasSize(3);
    assertThat(events.gets).isEmpty();
    assertThat(events.scans).hasValue(0);

    Campaigns.Campaign c =
        Campaigns.read(views.campaigns().find(campaigns.get(1).id()).orElseThrow(), views)
            .orElseThrow();
    assertThat(c.events()).hasSize(100);
    assertThat(events.gets).hasSize(100);
    assertThat(events.scans).hasValue(0);
  }
}
