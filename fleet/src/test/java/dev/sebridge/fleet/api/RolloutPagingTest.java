package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@code GET /api/rollouts} paged while rollouts come, change state and go between pages (as the
 * rollouts' view changes under a reader who pages through it), by state or not: a rollout that is
 * present and in the state asked for from the first page to the last is listed exactly once,
 * nothing is listed twice, every rollout listed was in that state, pages are in id order, and
 * following {@code next} ends.
 */
class RolloutPagingTest {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");

  final MapStore<Rollout> rollouts = new MapStore<>();

  @Property(tries = 200)
  void aRolloutPresentThroughoutIsListedExactlyOnce(@ForAll long seed) {
    Random rnd = new Random(seed);
    rollouts.map.clear(); // (the container's fields outlive a try)
    for (int r = 0; r < 20 + rnd.nextInt(200); r++) {
      put(rnd, rnd.nextInt(400));
    }
    RolloutApi api =
        new RolloutApi(
            null,
            new FleetViews(
                () -> new MapStore<>(),
                () -> new MapStore<>(),
                () -> new MapStore<>(),
                () -> rollouts,
                () -> new MapStore<>()),
            null,
            Clock.fixed(T0, ZoneOffset.UTC));
    Rollout.State state =
        rnd.nextInt(3) == 0
            ? null
            : Rollout.State.values()[rnd.nextInt(Rollout.State.values().length)];
    String limit = String.valueOf(1 + rnd.nextInt(100));

    Set<String> throughout = new TreeSet<>(rollouts.map.keySet());
    throughout.removeIf(id -> state != null && rollouts.map.get(id).state() != state);
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Map<String, String> q = new HashMap<>(Map.of("limit", limit));
      if (state != null) {
        q.put("state", state.toString());
      }
      if (cursor != null) {
        q.put("cursor", cursor);
      }
      ObjectNode page = api.list(q);
      page.get("rollouts")
          .forEach(
              r -> {
                listed.add(r.get("id").asText());
                assertThat(state == null || r.get("state").asText().equals(state.toString()))
                    .as("seed %d: %s listed in the state asked for", seed, r.get("id"))
                    .isTrue();
              });
      cursor = page.hasNonNull("next") ? page.get("next").asText() : null;
      pages++;
      // Between pages: rollouts come (any id, before or after the cursor), change state, and go.
      for (int change = rnd.nextInt(6); change > 0; change--) {
        if (rnd.nextBoolean() || rollouts.map.isEmpty()) {
          throughout.remove(put(rnd, rnd.nextInt(400)));
        } else {
          String gone =
              new ArrayList<>(rollouts.map.keySet()).get(rnd.nextInt(rollouts.map.size()));
          rollouts.map.remove(gone);
          throughout.remove(gone);
        }
      }
    } while (cursor != null && pages < 1_000);

    assertThat(cursor).as("seed %d: next ends", seed).isNull();
    assertThat(listed)
        .as("seed %d", seed)
        .doesNotHaveDuplicates()
        .isSorted()
        .containsAll(throughout);
  }

  /** A rollout in a random state, put (or put again) as {@code ro-NNN}; its id. */
  private String put(Random rnd, int r) {
    String id = String.format(Locale.ROOT, "ro-%03d", r);
    Rollout.State state = Rollout.State.values()[rnd.nextInt(Rollout.State.values().length)];
    rollouts.map.put(
        id,
        new Rollout(
            id,
            new RolloutSpec(
                List.of("E-" + r), "10%", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
            "wave",
            "alice",
            "api",
            T0,
            state,
            state == Rollout.State.HALTED
                ? new Rollout.Halt("vm-1", "E-" + r, "vm-1 is not back in time", T0)
                : null,
            Map.of(),
            Map.of(),
            List.of(),
            List.of()));
    return id;
  }
}
