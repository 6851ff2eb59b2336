package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.fleet.rollout.RolloutParts;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.RolloutVm;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rollouts task's store of rollouts in parts, over real in-memory stores: what one task writes
 * a successor reads back as the first holds it; a step writes only the entries that changed; a
 * deletion leaves no entry behind; and a header is one that an earlier version cannot mistake for a
 * rollout with no VMs.
 */
class RolloutStoreTest {
  static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

  MockProcessorContext<String, Object> context;
  KeyValueStore<String, Rollout> headers;
  KeyValueStore<String, RolloutPart> parts;

  @BeforeEach
  void stores() {
    context = new MockProcessorContext<>();
    context.setCurrentSystemTimeMs(T0.toEpochMilli());
    headers =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(FleetTopology.ROLLOUT_STATE),
                Serdes.String(),
                new RolloutHeaderSerde())
            .withLoggingDisabled()
            .build();
    parts =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(FleetTopology.ROLLOUT_PARTS_STATE),
                Serdes.String(),
                new JsonSerde<>(RolloutPart.class))
            .withLoggingDisabled()
            .build();
    headers.init(context.getStateStoreContext(), headers);
    parts.init(context.getStateStoreContext(), parts);
  }

  @Test
  void aSuccessorReadsWhatATaskWroteAsTheTaskHoldsIt() {
    RolloutStore first = new RolloutStore(headers, parts, context);
    Rollout r = rollout("r-1", 50, 0);
    first.put(r);
    Rollout held = first.get("r-1");
    Rollout read = new RolloutStore(headers, parts, context).get("r-1");
    assertThat(read).isEqualTo(held);
    assertThat(read.vms()).isEqualTo(r.vms());
    assertThat(read.spec()).isEqualTo(r.spec());
    assertThat(read.halt()).isEqualTo(r.halt());
    assertThat(read.unreported()).isEqualTo(r.unreported());
    assertThat(new RolloutStore(headers, parts, context).active()).containsExactly(held);
  }

  @Test
  void aStepWritesOnlyTheEntriesThatChangedAndADeletionLeavesNone() {
    RolloutStore store = new RolloutStore(headers, parts, context);
    store.put(rollout("r-1", 50, 0));
    store.put(rollout("r-10", 5, 0)); // an id that starts like the other's
    context.resetForwards();
    store.put(rollout("r-1", 50, 3)); // three VMs approved
    assertThat(context.forwarded(FleetTopology.ROLLOUT_PARTS_VIEW_SINK)).hasSize(3);
    assertThat(context.forwarded(FleetTopology.ROLLOUTS_VIEW_SINK)).hasSize(1);
    // an entry the task never knew of (left by a save cut short) goes too
    parts.put(
        RolloutPart.eventKey("r-1", "E-stray"),
        RolloutPart.of(new RolloutPart.Event("E-stray", 99, null)));
    context.resetForwards();
    store.delete("r-1");
    assertThat(context.forwarded(FleetTopology.ROLLOUT_PARTS_VIEW_SINK))
        .hasSize(50 + 50 + 3 + 1) // VMs, events, three zones' limits, the stray
        .allSatisfy(f -> assertThat(f.record().value()).isNull());
    assertThat(headers.get("r-1")).isNull();
    assertThat(new RolloutStore(headers, parts, context).get("r-10").vms()).hasSize(5);
    int left = 0;
    try (var it = parts.all()) {
      while (it.hasNext()) {
        assertThat(it.next().key).startsWith("r-10|");
        left++;
      }
    }
    assertThat(left).isEqualTo(5 + 5 + 3);
  }

  @Test
  void aRolloutWrittenWholeByAnEarlierVersionReadsAsItWasAndIsStoredInPartsAtItsNextSave() {
    Rollout r = rollout("r-1", 20, 2);
    // as the earlier version wrote it: the rollout whole, plain JSON
    byte[] whole = new JsonSerde<>(Rollout.class).serializer().serialize("t", r);
    headers.put("r-1", new RolloutHeaderSerde().deserializer().deserialize("t", whole));
    RolloutStore store = new RolloutStore(headers, parts, context);
    assertThat(store.get("r-1").vms()).isEqualTo(r.vms());
    store.put(store.get("r-1"));
    assertThat(headers.get("r-1").vms()).isEmpty();
    assertThat(new RolloutStore(headers, parts, context).get("r-1").vms()).isEqualTo(r.vms());
  }

  @Test
  void anEarlierVersionReadingAHeaderFindsNoStateAndSoStepsNothing() throws Exception {
    byte[] header =
        new RolloutHeaderSerde()
            .serializer()
            .serialize("t", RolloutParts.header(rollout("r", 3, 0)));
    assertThat(new String(header, StandardCharsets.UTF_8)).startsWith("{\"rolloutHeader2\":");
    // The earlier version's serde (plain JSON, unknown fields ignored): no state, so
    // Rollout.active() throws and its tick releases nothing, instead of a running rollout with no
    // VMs, which it would complete.
    Rollout old = new JsonSerde<>(Rollout.class).deserializer().deserialize("t", header);
    assertThat(old.state()).isNull();
    assertThat(old.vms()).isEmpty();
    // The version before the limits were entries ({"rolloutHeader": ...}; 5cc785e's serde, as it
    // read): no state either, rather than a header without its limits that its next save would
    // delete.
    com.fasterxml.jackson.databind.JsonNode n = JsonSerde.JSON.readTree(header);
    com.fasterxml.jackson.databind.JsonNode inner = n.get("rolloutHeader");
    Rollout before = JsonSerde.JSON.treeToValue(inner != null ? inner : n, Rollout.class);
    assertThat(before.state()).isNull();
  }

  /** A header that version wrote, its limits in it, reads with them, and is written anew. */
  @Test
  void aHeaderTheVersionBeforeTheLimitPartsWroteReadsWithItsLimits() throws Exception {
    Rollout r = rollout("r-1", 6, 0);
    Rollout h = RolloutParts.header(r);
    // as that version wrote its header: the limits in it
    Rollout withLimits =
        new Rollout(
            h.id(),
            h.spec(),
            h.reason(),
            h.requestedBy(),
            h.origin(),
            h.createdAt(),
            h.state(),
            h.halt(),
            r.groupLimits(),
            h.vms(),
            h.waves(),
            h.history(),
            h.unreported());
    com.fasterxml.jackson.databind.node.ObjectNode earlier = JsonSerde.JSON.createObjectNode();
    earlier.set("rolloutHeader", JsonSerde.JSON.valueToTree(withLimits));
    headers.put(
        "r-1",
        new RolloutHeaderSerde()
            .deserializer()
            .deserialize("t", JsonSerde.JSON.writeValueAsBytes(earlier)));
    assertThat(headers.get("r-1").groupLimits()).isEqualTo(r.groupLimits()).isNotEmpty();
  }

  @Test
  void aRolloutThatIsOverIsNotKeptButStillRead() {
    RolloutStore store = new RolloutStore(headers, parts, context);
    Rollout r = rollout("r-1", 10, 0);
    Rollout done =
        new Rollout(
            r.id(),
            r.spec(),
            r.reason(),
            r.requestedBy(),
            r.origin(),
            r.createdAt(),
            Rollout.COMPLETED,
            null,
            r.groupLimits(),
            r.vms(),
            r.waves(),
            r.history(),
            r.unreported());
    store.put(done);
    assertThat(store.active()).isEmpty();
    assertThat(store.get("r-1").state()).isEqualTo(Rollout.COMPLETED);
    assertThat(store.get("r-1").vms()).hasSize(10);
    assertThat(store.headers()).singleElement().satisfies(h -> assertThat(h.vms()).isEmpty());
  }

  /** A running rollout of {@code n} VMs, an event each, the first {@code approved} approved. */
  static Rollout rollout(String id, int n, int approved) {
    Map<String, RolloutVm> vms = new TreeMap<>();
    List<String> events = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      String e = String.format("E-%s-%03d", id, i);
      events.add(e);
      RolloutVm v =
          new RolloutVm(
              "vm-" + i,
              "web-" + i,
              e,
              "zone=" + (i % 3 + 1),
              RolloutVm.PENDING,
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
      vms.put(v.key(), i < approved ? approve(v) : v);
    }
    return new Rollout(
        id,
        new RolloutSpec(
            events, "10%", List.of("zone"), Duration.ofMinutes(2), Duration.ofMinutes(20)),
        "patch",
        "alice",
        "api",
        T0,
        Rollout.RUNNING,
        approved > 0 ? null : new Rollout.Halt("vm-0", events.get(0), "x".repeat(5_000), T0),
        Map.of("zone=1", 1, "zone=2", 1, "zone=3", 1),
        vms,
        approved > 0 ? List.of(new Rollout.Wave(1, T0, List.of(), List.of())) : List.of(),
        List.of(new Rollout.Entry(T0, "alice", "created", "patch")),
        Map.of(events.get(n - 1), T0));
  }

  private static RolloutVm approve(RolloutVm v) {
    return new RolloutVm(
        v.vmId(),
        v.name(),
        v.eventId(),
        v.group(),
        RolloutVm.APPROVED,
        false,
        1,
        "req-1",
        T0,
        null,
        null,
        null,
        null,
        T0.plusSeconds(1200),
        false,
        null);
  }
}
