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
