package dev.sebridge.fleet.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.fleet.api.MapStore;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** What a refresh writes to {@code <prefix>-inventory}, and what it never writes. */
class InventoryPublisherTest {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  final MutableClock clock = new MutableClock(T0);
  final MapStore<InventoryVm> held = new MapStore<>();
  final AtomicReference<Map<String, InventoryVm>> azure = new AtomicReference<>(Map.of());

  MockProducer<String, InventoryVm> producer(boolean autoComplete) {
    return new MockProducer<>(
        autoComplete,
        null,
        new StringSerializer(),
        new JsonSerde<>(InventoryVm.class).serializer());
  }

  InventoryPublisher publisher(MockProducer<String, InventoryVm> p) {
    return new InventoryPublisher(
        () -> {
          Map<String, InventoryVm> m = azure.get();
          if (m == null) {
            throw new IllegalStateException("Resource Graph answered 403");
          }
          return m;
        },
        () -> held,
        p,
        "fleet-inventory",
        clock);
  }

  static InventoryVm vm(String id, String zone) {
    return new InventoryVm(id, null, "n-" + id, "s", "rg", "westeurope", zone, null, null, null);
  }

  /** What the topic would hold after these records, as the views' store applies them. */
  void apply(MockProducer<String, InventoryVm> p) {
    for (ProducerRecord<String, InventoryVm> r : p.history()) {
      if (r.value() == null) {
        held.map.remove(r.key());
      } else {
        held.map.put(r.key(), r.value());
      }
    }
    p.clear();
  }

  @Test
  void aRefreshWritesWhatChangedAndRemovesWhatAzureNoLongerLists() {
    MockProducer<String, InventoryVm> p = producer(true);
    InventoryPublisher pub = publisher(p);
    Map<String, InventoryVm> first = new HashMap<>();
    for (String id : new String[] {"a", "b", "c"}) {
      first.put(id, vm(id, "1"));
    }
    azure.set(first);
    assertThat(pub.refresh()).isEqualTo(new InventoryPublisher.Refresh(3, 3, 0));
    apply(p);
    assertThat(pub.refreshedAt()).isEqualTo(T0);

    clock.advance(Duration.ofMinutes(5));
    Map<String, InventoryVm> second = new HashMap<>(first);
    second.put("b", vm("b", "2")); // moved (its zone, say)
    second.remove("c"); // deleted
    second.put("d", vm("d", "1")); // created
    azure.set(second);
    assertThat(pub.refresh()).isEqualTo(new InventoryPublisher.Refresh(3, 2, 1));
    assertThat(p.history())
        .extracting(r -> r.key() + "=" + (r.value() == null ? "tombstone" : r.value().zone()))
        .containsExactlyInAnyOrder("b=2", "d=1", "c=tombstone");
    apply(p);
    assertThat(held.map).containsOnlyKeys("a", "b", "d");
    assertThat(pub.refreshedAt()).isEqualTo(T0.plus(Duration.ofMinutes(5)));

    // Nothing changed: nothing written.
    assertThat(pub.refresh()).isEqualTo(new InventoryPublisher.Refresh(3, 0, 0));
    assertThat(p.history()).isEmpty();
  }

  /**
   * Two instances: b runs the rollouts task and writes what Azure says after a VM moved to another
   * resource group; a's read is from before the move. a writes nothing, so the move stands. When
   * both wrote, a's older read put the VM back in its old group until b's next refresh (5 minutes):
   * the group it had joined lost it, down or not. When a runs the rollouts task (a failover), it
   * reads and writes, and the tasks after a refresh run there only.
   */
  @Test
  void onlyTheInstanceThatRunsTheRolloutsTaskReadsAndWrites() {
    InventoryVm before = vm("a", "1");
    InventoryVm moved =
        new InventoryVm("a", null, "n-a", "s", "moved", "westeurope", "1", null, null, null);
    held.map.put("a", before);
    java.util.concurrent.atomic.AtomicBoolean aOwns =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger aReads =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger aTasks =
        new java.util.concurrent.atomic.AtomicInteger();
    MockProducer<String, InventoryVm> pa = producer(true);
    MockProducer<String, InventoryVm> pb = producer(true);
    InventoryPublisher a =
        new InventoryPublisher(
            () -> {
              aReads.incrementAndGet();
              return Map.of("a", before); // read before the move
            },
            () -> held,
            pa,
            "fleet-inventory",
            clock,
            aOwns::get);
    a.alsoEachRefresh(aTasks::incrementAndGet);
    InventoryPublisher b =
        new InventoryPublisher(
            () -> Map.of("a", moved), () -> held, pb, "fleet-inventory", clock, () -> !aOwns.get());

    b.runOnce(Duration.ofMinutes(5));
    apply(pb);
    assertThat(held.map.get("a").resourceGroup()).isEqualTo("moved");
    Duration next = a.runOnce(Duration.ofMinutes(5));
    apply(pa);
    assertThat(held.map.get("a").resourceGroup()).as("the move stands").isEqualTo("moved");
    assertThat(aReads.get()).isZero();
    assertThat(aTasks.get()).isZero();
    assertThat(next).isEqualTo(InventoryPublisher.OWNER_CHECK);

    aOwns.set(true); // b is gone; a runs the rollouts task now
    assertThat(a.runOnce(Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
    assertThat(aReads.get()).isEqualTo(1);
    assertThat(aTasks.get()).isEqualTo(1);
    assertThat(a.refreshedAt()).isEqualTo(T0);
    b.runOnce(Duration.ofMinutes(5));
    assertThat(pb.history()).isEmpty();
    assertThat(b.refreshedAt())
        .as("b no longer writes: its last read is not the inventory's")
        .isNull();
  }

  /** The rollouts task moved while this instance read Azure: what it read is not written. */
  @Test
  void aReadTheInstanceStoppedOwningTheTaskDuringIsNotWritten() {
    java.util.concurrent.atomic.AtomicInteger asked =
        new java.util.concurrent.atomic.AtomicInteger();
    MockProducer<String, InventoryVm> p = producer(true);
    azure.set(Map.of("a", vm("a", "1")));
    InventoryPublisher pub =
        new InventoryPublisher(
            azure::get,
            () -> held,
            p,
            "fleet-inventory",
            clock,
            () -> asked.incrementAndGet() == 1);
    pub.runOnce(Duration.ofMinutes(5));
    assertThat(asked.get()).isEqualTo(2);
    assertThat(p.history()).isEmpty();
    assertThat(pub.refreshedAt()).isNull();
  }

  @Test
  void aReadThatFailsWritesNothingAndRemovesNothing() {
    held.map.put("a", vm("a", "1"));
    MockProducer<String, InventoryVm> p = producer(true);
    InventoryPublisher pub = publisher(p);
    azure.set(null);
    assertThatThrownBy(pub::refresh).hasMessageContaining("403");
    assertThat(p.history()).isEmpty();
    assertThat(pub.refreshedAt()).isNull();
  }

  @Test
  void anAnswerWithNoVmsWhereTheViewsHoldSomeIsNotApplied() {
    held.map.put("a", vm("a", "1"));
    MockProducer<String, InventoryVm> p = producer(true);
    InventoryPublisher pub = publisher(p);
    azure.set(Map.of()); // the identity lost its Reader role: Resource Graph answers no rows
    assertThatThrownBy(pub::refresh).hasMessageContaining("lists no VMs where the views hold 1");
    assertThat(p.history()).isEmpty();
    assertThat(pub.refreshedAt()).isNull();
  }

  @Test
  void aWriteTheBrokerRefusesFailsTheRefresh() {
    MockProducer<String, InventoryVm> p = producer(true);
    p.sendException = new org.apache.kafka.common.errors.TimeoutException("broker away");
    InventoryPublisher pub = publisher(p);
    azure.set(Map.of("a", vm("a", "1")));
    assertThatThrownBy(pub::refresh).hasMessageContaining("could not be written");
    assertThat(pub.refreshedAt()).isNull();
  }
}
