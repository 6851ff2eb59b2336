package dev.sebridge.fleet.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A retention check that reads at most {@code budget} records of a store each time it runs: on from
 * the key after the last one the check before read, and round again from the first key once it read
 * the last. A store of N records is read whole every ceil(N / budget) checks, and no check parses
 * the whole store from JSON on the stream thread. Where it stopped is kept in memory only, so the
 * first check of a new processor (a restart, a failover, a task moved or its thread replaced) reads
 * the store whole: however often that happens, every record is checked at least once per round or
 * per start, never left behind a cursor that starts over.
 *
 * <p>Not thread-safe: one per processor.
 */
final class RetentionSweep<V> {
  private final int budget;
  private boolean started; // false until the first check, which reads the store whole
  private String after; // the last key read by the check before; null: from the first key

  RetentionSweep(int budget) {
    if (budget < 1) {
      throw new IllegalArgumentException("budget must be at least 1");
    }
    this.budget = budget;
  }

  /**
   * The keys, among the next {@code budget} records, whose records have expired: the caller deletes
   * them. A null value is expired whatever the rule says (nothing to keep).
   */
  List<String> expired(ReadOnlyKeyValueStore<String, V> store, BiPredicate<String, V> expired) {
    List<String> out = new ArrayList<>();
    String from = after;
    String last = null;
    int read = 0;
    int most = started ? budget : Integer.MAX_VALUE;
    started = true;
    // (from, null): every key from there on; `from` itself was read the last time
    try (KeyValueIterator<String, V> it = from == null ? store.all() : store.range(from, null)) {
      while (read < most && it.hasNext()) {
        KeyValue<String, V> kv = it.next();
        if (kv.key.equals(from)) {
          continue;
        }
        read++;
        last = kv.key;
        if (kv.value == null || expired.test(kv.key, kv.value)) {
          out.add(kv.key);
        }
      }
      after = it.hasNext() ? last : null; // the end reached: round again from the first key
    }
    return out;
  }
}
