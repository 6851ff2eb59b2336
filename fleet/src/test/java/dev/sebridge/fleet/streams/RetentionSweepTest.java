package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.fleet.api.MapStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A retention check reads at most its budget of records, on from where the one before stopped and
 * round again from the first key; every record is checked once a round, whatever was deleted or
 * added meanwhile.
 */
class RetentionSweepTest {
  private static final Instant T0 = Instant.parse("2026-11-27T00:00:00Z");

  private static String key(int i) {
    return String.format("r-%03d", i);
  }

  @Test
  void eachCheckReadsItsBudgetOnFromTheLastAndRoundAgain() {
    MapStore<Instant> store = new MapStore<>();
    for (int i = 0; i < 25; i++) {
      store.map.put(key(i), T0);
    }
    RetentionSweep<Instant> sweep = new RetentionSweep<>(10);
    List<List<String>> rounds = new ArrayList<>();
    for (int check = 0; check < 5; check++) {
      List<String> seen = new ArrayList<>();
      sweep.expired(store, (k, v) -> seen.add(k) && false);
      rounds.add(seen);
    }
    assertThat(rounds.get(0)).as("the first check: whole").hasSize(25);
    assertThat(rounds.get(1)).hasSize(10).startsWith(key(0)).endsWith(key(9));
    assertThat(rounds.get(2)).hasSize(10).startsWith(key(10)).endsWith(key(19));
    assertThat(rounds.get(3)).hasSize(5).startsWith(key(20)).endsWith(key(24));
    assertThat(rounds.get(4)).as("round again").hasSize(10).startsWith(key(0));
  }

  /**
   * A processor that starts over often (a task moving, a thread replaced) never leaves the end of
   * the key order unchecked: each new sweep reads the store whole first.
   */
  @Test
  void aSweepThatStartsOverStillChecksEveryRecord() {
    MapStore<Instant> store = new MapStore<>();
    for (int i = 0; i < 25; i++) {
      store.map.put(key(i), T0);
    }
    java.util.Set<String> seen = new java.util.TreeSet<>();
    for (int start = 0; start < 3; start++) {
      RetentionSweep<Instant> sweep = new RetentionSweep<>(10); // a new processor
      sweep.expired(store, (k, v) -> seen.add(k) && false);
    }
    assertThat(seen).hasSize(25);
  }

  /** The same on the stores the topology has (Kafka Streams' in-memory store, its key order). */
  @Test
  void onAKafkaStreamsStoreToo() {
    org.apache.kafka.streams.state.KeyValueStore<String, String> store =
        org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
                org.apache.kafka.streams.state.Stores.inMemoryKeyValueStore("sweep"),
                org.apache.kafka.common.serialization.Serdes.String(),
                org.apache.kafka.common.serialization.Serdes.String())
            .withLoggingDisabled()
            .build();
    store.init(
        new org.apache.kafka.streams.processor.api.MockProcessorContext<>().getStateStoreContext(),
        store);
    for (int i = 24; i >= 0; i--) {
      store.put(key(i), "v");
    }
    RetentionSweep<String> sweep = new RetentionSweep<>(10);
    sweep.expired(store, (k, v) -> false); // the first: whole
    List<String> seen = new ArrayList<>();
    for (int check = 0; check < 4; check++) {
      sweep.expired(store, (k, v) -> seen.add(k) && false);
    }
    assertThat(seen).hasSize(35);
    assertThat(seen.subList(0, 25)).isSorted().doesNotHaveDuplicates();
    assertThat(seen.subList(25, 35)).isEqualTo(seen.subList(0, 10));
    store.close();
  }

  @Test
  void aRecordDeletedWhereTheCheckStoppedOrAddedBehindItIsNoObstacle() {
    MapStore<Instant> store = new MapStore<>();
    for (int i = 0; i < 20; i += 2) {
      store.map.put(key(i), T0);
    }
    RetentionSweep<Instant> sweep = new RetentionSweep<>(4);
    sweep.expired(store, (k, v) -> false); // the first: whole
    List<String> seen = new ArrayList<>();
    sweep.expired(store, (k, v) -> seen.add(k) && false); // 0, 2, 4, 6
    store.map.remove(key(6)); // where it stopped
    store.map.put(key(1), T0); // behind it: the next round
    sweep.expired(store, (k, v) -> seen.add(k) && false); // 8, 10, 12, 14
    sweep.expired(store, (k, v) -> seen.add(k) && false); // 16, 18: the end
    sweep.expired(store, (k, v) -> seen.add(k) && false); // 0, 1, 2, 4
    assertThat(seen)
        .containsExactly(
            key(0), key(2), key(4), key(6), key(8), key(10), key(12), key(14), key(16), key(18),
            key(0), key(1), key(2), key(4));
  }

  /**
   * The rule as the requests have it (an injected clock): a record goes within its retention plus
   * one check per budget of records kept, never before its retention.
   */
  @Test
  void aRecordGoesWithinItsRetentionPlusACheckPerBudgetKeptAndNeverBefore() {
    Duration history = Duration.ofDays(30);
    MapStore<Instant> store = new MapStore<>();
    for (int i = 0; i < 95; i++) {
      store.map.put(key(i), T0.plus(Duration.ofMinutes(i % 7))); // made at T0 to T0 + 6 min
    }
    RetentionSweep<Instant> sweep = new RetentionSweep<>(10);
    Instant now = T0.plus(history).minus(Duration.ofMinutes(5));
    while (!store.map.isEmpty()) {
      Instant horizon = now.minus(history);
      for (String k : sweep.expired(store, (k, made) -> made.isBefore(horizon))) {
        assertThat(store.map.get(k)).as("deleted only once expired").isBefore(horizon);
        store.map.remove(k);
      }
      now = now.plus(Duration.ofMinutes(1)); // a check a minute
    }
    // The newest was made at T0 + 6 min: expired after T0 + history + 6 min, and gone within ten
    // checks (95 records, 10 a check) after that.
    assertThat(now).isBefore(T0.plus(history).plus(Duration.ofMinutes(6 + 10 + 2)));
  }

  @Test
  void aBudgetBelowOneIsRefused() {
    assertThatThrownBy(() -> new RetentionSweep<Instant>(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
