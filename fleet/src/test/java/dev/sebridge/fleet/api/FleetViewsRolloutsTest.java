package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.fleet.rollout.RolloutParts;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.RolloutVm;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an approval and the page read of the rollouts: a month of finished rollouts can hold an
 * entry for every VM of the fleet, so only the rollouts an answer needs are put together from their
 * entries; of the others only the headers are read. Until 2026-11-29 both put every rollout
 * together: each approval read every entry of a month of rollouts.
 */
class FleetViewsRolloutsTest {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");

  final MapStore<Rollout> headers = new MapStore<>();
  final MapStore<RolloutPart> parts = new MapStore<>();
  final FleetViews views =
      new FleetViews(() -> null, () -> null, () -> null, () -> headers, () -> parts, () -> null);

  /** 40 finished rollouts of 50 VMs each, then one running and one halted, each 50 VMs too. */
  FleetViewsRolloutsTest() {
    for (int i = 0; i < 40; i++) {
      put(rollout("done-" + i, Rollout.State.of("completed"), T0.plusSeconds(i)));
    }
    put(rollout("running", Rollout.State.of("running"), T0.minusSeconds(60)));
    put(rollout("halted", Rollout.State.of("halted"), T0.minusSeconds(120)));
  }

  @Test
  void anApprovalPutsTogetherOnlyTheRolloutsRunningOrHalted() {
    List<Rollout> active = views.rollouts().active();

    assertThat(active).extracting(Rollout::id).containsExactlyInAnyOrder("running", "halted");
    assertThat(active).allSatisfy(r -> assertThat(r.vms()).hasSize(50));
    assertThat(active.get(0).holds("ev-" + active.get(0).id())).isTrue();
    assertThat(parts.ranges)
        .as("entries read for the two, not for the 40 finished ones")
        .containsExactlyInAnyOrder(RolloutPart.from("running"), RolloutPart.from("halted"));
    assertThat(parts.scans).hasValue(0);
  }

  @Test
  void thePageReadsTheEntriesOfTheRolloutsItShowsOnly() {
    // (as the page's first page takes them: RolloutRows)
    List<Rollout> shown =
        views.rollouts().ordered().stream().limit(20).map(views.rollouts()::assembled).toList();

    List<String> expected = new ArrayList<>(List.of("running", "halted"));
    for (int i = 39; expected.size() < 20; i--) {
      expected.add("done-" + i);
    }
    assertThat(shown).extracting(Rollout::id).containsExactlyElementsOf(expected);
    assertThat(shown).allSatisfy(r -> assertThat(r.vms()).hasSize(50));
    assertThat(parts.ranges).hasSize(20);
    assertThat(parts.scans).hasValue(0);
  }

  /**
   * Which rollouts hold an event: a rollout stored in parts has no event ids in its header, so its
   * entry for the event is read (one key), not its spec (the API's {@code ?eventId=} found none
   * before this).
   */
  @Test
  void whichRolloutsHoldAnEventIsReadFromTheirEntries() {
    assertThat(headers.map.get("running").spec().eventIds()).as("the header's").isEmpty();
    assertThat(
            views.rollouts().after(null, r -> views.rollouts().holds(r, "EV-RUNNING"), 100).stream()
                .map(kv -> kv.key)
                .toList())
        .containsExactly("running");
    assertThat(views.rollouts().holds(headers.map.get("halted"), "ev-running")).isFalse();
    assertThat(parts.ranges).as("no rollout put together").isEmpty();
  }

  private void put(Rollout r) {
    headers.map.put(r.id(), RolloutParts.header(r));
    parts.map.putAll(RolloutParts.parts(r));
  }

  /** A rollout of event ev-ID over 50 VMs, none released yet. */
  private static Rollout rollout(String id, Rollout.State state, Instant createdAt) {
    String event = "ev-" + id;
    RolloutSpec spec =
        new RolloutSpec(
            List.of(event), "1", List.of("zone"), Duration.ofMinutes(2), Duration.ofMinutes(20));
    Map<String, RolloutVm> vms = new LinkedHashMap<>();
    for (int v = 0; v < 50; v++) {
      String vm = id + "-vm-" + v;
      vms.put(
          vm + "|" + event,
          new RolloutVm(
              vm,
              vm,
              event,
              "zone=1",
              RolloutVm.PENDING,
              false,
              0,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              false,
              null));
    }
    return new Rollout(
        id,
        spec,
        "go",
        "alice",
        "api",
        createdAt,
        state,
        null,
        Map.of(),
        vms,
        List.of(),
        List.of(new Rollout.Entry(createdAt, "alice", "created", "go")));
  }
}
