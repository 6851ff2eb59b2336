package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The newest requests kept change by change ({@link RecentRequests}) against a sort of every
 * request the view holds, after every change of random histories longer than what is kept: requests
 * made, their results coming, deleted by retention (the oldest) or at random, and, rarely, one
 * whose time moved.
 */
class RecentRequestsTest {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");

  @Property(tries = 60)
  void theKeptNewestAreThoseOfASortAfterEveryChange(@ForAll long seed) {
    Random random = new Random(seed);
    Map<String, RequestView> views = new HashMap<>();
    RecentRequests recent = new RecentRequests();
    int made = 0;
    int steps = 400 + random.nextInt(800); // about half are kept at the end: more than KEPT
    for (int step = 0; step < steps; step++) {
      int what = random.nextInt(20);
      String key;
      RequestView after;
      if (what < 11 || views.isEmpty()) {
        key = "r-" + made;
        // mostly in order, three at a time in one instant (a wave's releases), sometimes late (a
        // replayed or slow write), rarely without a time
        after =
            view(
                key,
                random.nextInt(50) == 0
                    ? null
                    : T0.plusSeconds((made / 3) * 10L - (random.nextInt(6) == 0 ? 3000 : 0)),
                0);
        made++;
      } else {
        List<String> keys = views.keySet().stream().sorted().toList();
        key =
            what < 14
                ? oldest(views) // retention
                : keys.get(random.nextInt(keys.size()));
        RequestView before = views.get(key);
        after =
            what < 15
                ? null // deleted: by retention, or one at random
                : what == 15
                    ? view(key, T0.plusSeconds(random.nextInt(made * 10 + 1)), 0) // time moved
                    : view(key, before.request().requestedAt(), before.vms().size() + 1); // result
      }
      if (after == null) {
        views.remove(key);
      } else {
        views.put(key, after);
      }
      recent.keyChanged(FleetTopology.REQUESTS_VIEW, key, after);
      int n = random.nextBoolean() ? 50 : RecentRequests.KEPT;
      assertThat(recent.newest(n, () -> Map.copyOf(views)))
          .as("seed %d, step %d", seed, step)
          .isEqualTo(sorted(views, n));
      assertThat(recent.olderLeftOut())
          .as("seed %d, step %d: older ones left out", seed, step)
          .isEqualTo(views.size() > RecentRequests.KEPT);
    }
  }

  /**
   * With more requests than kept, the newest come from what is kept, without reading the view; when
   * retention takes one of them, one read of the view fills them again.
   */
  @Test
  void theViewIsReadOnlyToRefillAfterAKeptOneWent() {
    Map<String, RequestView> views = new HashMap<>();
    RecentRequests recent = new RecentRequests();
    for (int i = 0; i < 1000; i++) {
      String key = String.format("r-%04d", i);
      views.put(key, view(key, T0.plusSeconds(i), 0));
      recent.keyChanged(FleetTopology.REQUESTS_VIEW, key, views.get(key));
    }
    AtomicInteger reads = new AtomicInteger();
    assertThat(recent.newest(50, () -> count(reads, views))).isEqualTo(sorted(views, 50));
    assertThat(reads).hasValue(0);

    views.remove("r-0999");
    recent.keyChanged(FleetTopology.REQUESTS_VIEW, "r-0999", null);
    assertThat(recent.newest(50, () -> count(reads, views))).isEqualTo(sorted(views, 50));
    assertThat(reads).as("a kept one went while older ones were left out").hasValue(1);
    assertThat(recent.newest(50, () -> count(reads, views))).isEqualTo(sorted(views, 50));
    assertThat(reads).hasValue(1);
  }

  /**
   * Whether the view holds older requests than those kept follows retention: once it took every one
   * left out, the next read says none are. Until 2026-11-29 it said so for good (the page kept
   * pointing to the CLI for requests that were gone).
   */
  @Test
  void olderOnesLeftOutAreNoLongerSaidToBeOnceRetentionTookThem() {
    Map<String, RequestView> views = new HashMap<>();
    RecentRequests recent = new RecentRequests();
    int n = RecentRequests.KEPT + 3;
    for (int i = 0; i < n; i++) {
      String key = String.format("r-%04d", i);
      views.put(key, view(key, T0.plusSeconds(i), 0));
      recent.keyChanged(FleetTopology.REQUESTS_VIEW, key, views.get(key));
    }
    assertThat(recent.newest(50, () -> Map.copyOf(views))).isEqualTo(sorted(views, 50));
    assertThat(recent.olderLeftOut()).isTrue();
    for (int i = 0; i < 3; i++) {
      String key = String.format("r-%04d", i);
      views.remove(key);
      recent.keyChanged(FleetTopology.REQUESTS_VIEW, key, null);
      assertThat(recent.newest(50, () -> Map.copyOf(views))).isEqualTo(sorted(views, 50));
      assertThat(recent.olderLeftOut()).as("%d left out", 2 - i).isEqualTo(i < 2);
    }
  }

  private static Map<String, RequestView> count(AtomicInteger reads, Map<String, RequestView> v) {
    reads.incrementAndGet();
    return Map.copyOf(v);
  }

  private static String oldest(Map<String, RequestView> views) {
    return views.entrySet().stream()
        .min(
            Comparator.comparing(
                    (Map.Entry<String, RequestView> e) -> e.getValue().request().requestedAt(),
                    Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
                .thenComparing(Map.Entry::getKey))
        .orElseThrow()
        .getKey();
  }

  /**
   * What the page read before: the view in its store order, sorted (stably) by time, the newest
   * first (one without a time last).
   */
  private static List<String> sorted(Map<String, RequestView> views, int n) {
    return views.entrySet().stream()
        .sorted(Map.Entry.comparingByKey(dev.sebridge.fleet.ViewTallies.STORE_ORDER))
        .sorted(
            Comparator.comparing(
                (Map.Entry<String, RequestView> e) -> e.getValue().request().requestedAt(),
                Comparator.nullsLast(Comparator.<Instant>reverseOrder())))
        .limit(n)
        .map(Map.Entry::getKey)
        .toList();
  }

  private static RequestView view(String key, Instant at, int results) {
    Map<String, RequestView.VmResult> vms = new HashMap<>();
    for (int i = 0; i < results; i++) {
      vms.put("vm-" + i, new RequestView.VmResult("c-" + i, "accepted", "accepted", "ok", at));
    }
    return new RequestView(
        new ApprovalRequest(
            key, "EV-1", List.of("vm-0"), "go", "alice", at, "api", false, null, true, null),
        at,
        vms);
  }
}
