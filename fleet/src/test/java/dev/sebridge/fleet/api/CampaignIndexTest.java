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
      case 5 -> // an earlier sighting came late (EventViews keeps the earlier)
          event(
              key,
              before.eventType(),
              before.description(),
              before.notBefore(),
              before.firstSeenAt() == null
                  ? T0
                  : before.firstSeenAt().minus(Duration.ofMinutes(random.nextInt(120))),
              before.closedAt(),
              before.vms().size(),
              "scheduled");
      case 6 -> // Azure changed its description: another kind
          event(
              key,
              before.eventType(),
              DESCRIPTIONS.get(random.nextInt(DESCRIPTIONS.size())),
              before.notBefore(),
              before.firstSeenAt(),
              before.closedAt(),
              before.vms().size(),
              "scheduled");
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
   * A reader never sees a change half applied: while the global thread is inside a change that
   * moves the only event of a campaign (its old sighting about to go, the new one not yet in), a
   * list waits for it, and then has the campaign as it is after it. Before, a list taken inside the
   * change missed the campaign, and its id answered 404.
   */
  @Test
  void aListNeverSeesAChangeHalfApplied() throws Exception {
    CampaignIndex index = new CampaignIndex();
    EventView e =
        event("ev-1", "Reboot", "Host update", T0.plusSeconds(3600), T0, null, 1, "scheduled");
    index.keyChanged(FleetTopology.EVENTS_VIEW, "ev-1", e);
    String id = index.campaigns().get(0).id();
    // Another change, no list taken since: the next list is computed, not the one kept.
    index.keyChanged(
        FleetTopology.EVENTS_VIEW,
        "ev-2",
        event("ev-2", "Freeze", "Host update", null, T0.plusSeconds(60), null, 1, "scheduled"));
    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    index.midChange =
        () -> {
          inside.countDown();
          try {
            release.await();
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
        };
    Instant moved = T0.plusSeconds(7200);
    Thread writer =
        new Thread(
            () ->
                index.keyChanged(
                    FleetTopology.EVENTS_VIEW,
                    "ev-1",
                    event("ev-1", "Reboot", "Host update", moved, T0, null, 1, "scheduled")));
    writer.start();
    assertThat(inside.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    java.util.concurrent.atomic.AtomicReference<List<CampaignIndex.Members>> read =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread reader = new Thread(() -> read.set(index.campaigns()));
    reader.start();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> read.get() != null || reader.getState() == Thread.State.WAITING);
    assertThat(read.get()).as("no list while the change is half applied").isNull();
    release.countDown();
    writer.join(10_000);
    reader.join(10_000);
    assertThat(read.get()).hasSize(2);
    assertThat(read.get().get(0).id()).isEqualTo(id);
    assertThat(read.get().get(0).soonest()).isEqualTo(moved);
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

    CampaignView c =
        Campaigns.read(views.campaigns().find(campaigns.get(1).id()).orElseThrow(), views)
            .orElseThrow();
    assertThat(c.eventCount()).isEqualTo(100);
    assertThat(events.gets).hasSize(100);
    assertThat(events.scans).hasValue(0);
  }
}
