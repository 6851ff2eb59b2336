package dev.sebridge.fleet.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A rollout stored as a header and entries reads back as it was: its VMs, its events in the spec's
 * order, the events waiting for reports, and its waves' events and VMs read from the VMs' entries;
 * only the oldest waves and actions past the header's bounds are left out.
 */
class RolloutPartsTest {
  static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

  @Test
  void aRolloutReadsBackFromItsHeaderAndEntries() {
    Random random = new Random(27);
    for (int run = 0; run < 200; run++) {
      Rollout r = random(random, run);
      Rollout header = RolloutParts.header(r);
      assertThat(header.vms()).isEmpty();
      assertThat(header.spec().eventIds()).isEmpty();
      assertThat(header.unreported()).isEmpty();
      assertThat(header.groupLimits()).as("an entry each").isEmpty();
      Map<String, RolloutPart> parts = RolloutParts.parts(r);
      // through JSON, as the stores and topics hold them, in any order
      var entries = new dev.sebridge.fleet.streams.JsonSerde<>(RolloutPart.class);
      var headers = new dev.sebridge.fleet.streams.JsonSerde<>(Rollout.class);
      List<RolloutPart> shuffled = new ArrayList<>();
      for (RolloutPart p : parts.values()) {
        shuffled.add(
            entries.deserializer().deserialize("t", entries.serializer().serialize("t", p)));
      }
      java.util.Collections.shuffle(shuffled, random);
      header = headers.deserializer().deserialize("t", headers.serializer().serialize("t", header));
      Rollout back = RolloutParts.assemble(header, shuffled);
      assertThat(back.vms()).as("run %d", run).isEqualTo(r.vms());
      assertThat(back.spec()).as("run %d", run).isEqualTo(r.spec());
      assertThat(back.unreported()).as("run %d", run).isEqualTo(r.unreported());
      assertThat(back.groupLimits()).isEqualTo(r.groupLimits());
      assertThat(back.state()).isEqualTo(r.state());
      assertThat(back.halt()).isEqualTo(r.halt());
      assertThat(back.history()).isEqualTo(r.history());
      assertThat(back.waves()).hasSameSizeAs(r.waves());
      for (int i = 0; i < r.waves().size(); i++) {
        Rollout.Wave w = r.waves().get(i);
        Rollout.Wave b = back.waves().get(i);
        assertThat(b.number()).isEqualTo(w.number());
        assertThat(b.at()).isEqualTo(w.at());
        assertThat(b.vmIds()).containsExactlyInAnyOrderElementsOf(w.vmIds());
        assertThat(b.eventIds()).containsExactlyInAnyOrderElementsOf(w.eventIds());
      }
      // each entry is keyed where a range read of its rollout finds it (in the stores' order: the
      // keys' UTF-8 bytes), and of no rollout whose id starts like its own
      for (String k : parts.keySet()) {
        assertThat(inRange(k, r.id())).as(k).isTrue();
        for (String other : List.of(r.id() + "0", r.id() + "-2", r.id() + "~", r.id() + "\u00e9")) {
          assertThat(inRange(k, other)).as("%s in %s", k, other).isFalse();
        }
      }
    }
  }

  /**
   * A header written before the limits were entries of their own holds them; with an entry of a
   * group too (recorded since), the smaller stands.
   */
  @Test
  void aHeaderWithLimitsFromAnEarlierVersionReadsWithTheEntriesSmallerLimits() {
    Rollout r = random(new Random(5), 2);
    Rollout header = RolloutParts.header(r);
    Rollout old =
        new Rollout(
            header.id(),
            header.spec(),
            header.reason(),
            header.requestedBy(),
            header.origin(),
            header.createdAt(),
            header.state(),
            header.halt(),
            Map.of("zone=1", 3, "zone=2", 1, "zone=9", 4),
            header.vms(),
            header.waves(),
            header.history(),
            header.unreported());
    Rollout back = RolloutParts.assemble(old, RolloutParts.parts(r).values());
    assertThat(back.groupLimits())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("zone=1", 1, "zone=2", 1, "zone=3", 1, "zone=9", 4));
    assertThat(RolloutParts.header(back).groupLimits()).isEmpty();
    assertThat(RolloutParts.parts(back)).containsKey(RolloutPart.limitKey(r.id(), "zone=9"));
  }

  @Test
  void theHeaderKeepsTheNewestWavesAndActionsOnly() {
    List<Rollout.Wave> waves = new ArrayList<>();
    List<Rollout.Entry> history = new ArrayList<>();
    for (int i = 1; i <= 2_000; i++) {
      waves.add(new Rollout.Wave(i, T0.plusSeconds(i), List.of(), List.of()));
      history.add(new Rollout.Entry(T0.plusSeconds(i), "fleet", "halted", "h" + i));
    }
    Rollout r = rollout("policy-p-v1", waves, history, Map.of(), List.of("E-1"), Map.of());
    Rollout header = RolloutParts.header(r);
    assertThat(header.waves()).hasSize(RolloutParts.MAX_WAVES);
    assertThat(header.waves().get(header.waves().size() - 1).number()).isEqualTo(2_000);
    assertThat(header.history()).hasSize(RolloutParts.MAX_HISTORY);
    assertThat(header.history().get(RolloutParts.MAX_HISTORY - 1).detail()).isEqualTo("h2000");
  }

  @Test
  void aRolloutWrittenWholeReadsAsItWasAndOneWhoseIdHasTheSeparatorStaysWhole() {
    Rollout r = random(new Random(3), 1);
    assertThat(RolloutParts.assemble(r, List.of())).isEqualTo(r);
    Rollout odd = rolloutWithId("a|b");
    assertThat(RolloutParts.header(odd)).isEqualTo(odd);
    assertThat(RolloutParts.parts(odd)).isEmpty();
  }

  /** Whether a store's range read of this rollout's entries takes the key. */
  private static boolean inRange(String key, String rolloutId) {
    return bytes(key).compareTo(bytes(RolloutPart.from(rolloutId))) >= 0
        && bytes(key).compareTo(bytes(RolloutPart.to(rolloutId))) <= 0;
  }

  private static org.apache.kafka.common.utils.Bytes bytes(String s) {
    return org.apache.kafka.common.utils.Bytes.wrap(
        s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private static Rollout rolloutWithId(String id) {
    return rollout(id, List.of(), List.of(), Map.of(), List.of("E-1"), Map.of());
  }

  private static Rollout random(Random random, int run) {
    int events = 1 + random.nextInt(30);
    List<String> eventIds = new ArrayList<>();
    for (int e = 0; e < events; e++) {
      eventIds.add(String.format("%08X-0000-4000-8000-%012d", run, e));
    }
    java.util.Collections.shuffle(eventIds, random);
    Map<String, RolloutVm> vms = new TreeMap<>();
    List<Rollout.Wave> waves = new ArrayList<>();
    int lastWave = 0;
    for (String e : eventIds) {
      int listed = 1 + random.nextInt(4);
      Integer wave = random.nextInt(3) == 0 ? null : 1 + random.nextInt(5);
      for (int v = 0; v < listed; v++) {
        String vmId = "vm-" + random.nextInt(40);
        RolloutVm vm =
            new RolloutVm(
                vmId,
                "web-" + vmId,
                e,
                "zone=" + (1 + random.nextInt(3)),
                wave == null ? RolloutVm.PENDING : RolloutVm.APPROVED,
                false,
                wave,
                wave == null ? null : "req-" + e,
                wave == null ? null : T0.plusSeconds(wave),
                null,
                null,
                null,
                null,
                wave == null ? null : T0.plusSeconds(1200),
                false,
                null);
        vms.put(vm.key(), vm);
      }
      lastWave = Math.max(lastWave, wave == null ? 0 : wave);
    }
    for (int w = 1; w <= lastWave; w++) {
      final int n = w;
      List<RolloutVm> in =
          vms.values().stream().filter(v -> Integer.valueOf(n).equals(v.wave())).toList();
      if (!in.isEmpty()) {
        waves.add(
            new Rollout.Wave(
                n,
                T0.plusSeconds(n),
                in.stream().map(RolloutVm::eventId).distinct().toList(),
                in.stream().map(RolloutVm::vmId).distinct().toList()));
      }
    }
    Map<String, Instant> unreported = new TreeMap<>();
    for (String e : eventIds) {
      if (random.nextInt(4) == 0) {
        unreported.put(e, T0.plusSeconds(random.nextInt(100)));
      }
    }
    if (random.nextBoolean()) {
      unreported.put("FFFFFFFF-0000-4000-8000-" + run, T0); // an event no longer in the spec
    }
    Map<String, Integer> limits = Map.of("zone=1", 1, "zone=2", 2, "zone=3", 1);
    Rollout.State state = Rollout.State.values()[random.nextInt(Rollout.State.values().length)];
    Rollout plain =
        rollout(
            "r-" + run,
            waves,
            List.of(
                new Rollout.Entry(T0, "alice", "created", "go"),
                new Rollout.Entry(T0.plusSeconds(9), "bob", "skipped", "vm-1 (E)")),
            limits,
            eventIds,
            unreported,
            vms);
    return new Rollout(
        plain.id(),
        plain.spec(),
        plain.reason(),
        plain.requestedBy(),
        plain.origin(),
        plain.createdAt(),
        state,
        state == Rollout.HALTED
            ? new Rollout.Halt("vm-1", eventIds.get(0), "web-1 is not back in time", T0)
            : null,
        plain.groupLimits(),
        plain.vms(),
        plain.waves(),
        plain.history(),
        plain.unreported());
  }

  private static Rollout rollout(
      String id,
      List<Rollout.Wave> waves,
      List<Rollout.Entry> history,
      Map<String, Integer> limits,
      List<String> eventIds,
      Map<String, Instant> unreported) {
    return rollout(id, waves, history, limits, eventIds, unreported, Map.of());
  }

  private static Rollout rollout(
      String id,
      List<Rollout.Wave> waves,
      List<Rollout.Entry> history,
      Map<String, Integer> limits,
      List<String> eventIds,
      Map<String, Instant> unreported,
      Map<String, RolloutVm> vms) {
    return new Rollout(
        id,
        new RolloutSpec(
            eventIds, "1", List.of("zone"), Duration.ofMinutes(2), Duration.ofMinutes(20)),
        "patch",
        "alice",
        "api",
        T0,
        Rollout.RUNNING,
        null,
        limits,
        vms,
        waves,
        history,
        unreported);
  }
}
