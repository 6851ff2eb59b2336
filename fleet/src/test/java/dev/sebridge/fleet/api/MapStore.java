package dev.sebridge.fleet.api;

import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** A store of views the API reads, filled by the test. */
public final class MapStore<V> implements ReadOnlyKeyValueStore<String, V> {
  // In the stores' order (their keys' UTF-8 bytes), as Kafka Streams' in-memory store has it.
  public final TreeMap<String, V> map = new TreeMap<>(dev.sebridge.fleet.ViewTallies.STORE_ORDER);
  // What the reader asked of the store: how many whole scans, which keys.
  final java.util.concurrent.atomic.AtomicInteger scans =
      new java.util.concurrent.atomic.AtomicInteger();
  final java.util.List<String> gets = new java.util.concurrent.CopyOnWriteArrayList<>();
  // Where the reader's bounded ranges began.
  final java.util.List<String> ranges = new java.util.concurrent.CopyOnWriteArrayList<>();
  // Records the reader's scans and ranges read.
  final java.util.concurrent.atomic.AtomicInteger iterated =
      new java.util.concurrent.atomic.AtomicInteger();

  // Keys whose read fails as a store would that cannot be read (a fault the API does not expect).
  final java.util.Set<String> failing = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // Keys whose read finds the store closed, as Kafka Streams' global store provider says it.
  final java.util.Set<String> closed = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // Keys whose read finds no such store in the topology (a wiring fault).
  final java.util.Set<String> unknown = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @Override
  public V get(String key) {
    gets.add(key);
    if (failing.contains(key)) {
      throw new IllegalStateException("the store cannot be read: " + key);
    }
    if (closed.contains(key)) {
      throw new org.apache.kafka.streams.errors.InvalidStateStoreException(
          "the state store, vms, is not open.");
    }
    if (unknown.contains(key)) {
      throw new org.apache.kafka.streams.errors.UnknownStateStoreException(
          "Cannot get state store vms because no such store is registered in the topology.");
    }
    return map.get(key);
  }

  @Override
  public KeyValueIterator<String, V> range(String from, String to) {
    if (from == null && to == null) {
      scans.incrementAndGet();
    } else {
      ranges.add(String.valueOf(from));
    }
    NavigableMap<String, V> m = map;
    if (from != null) {
      m = m.tailMap(from, true);
    }
    if (to != null) {
      m = m.headMap(to, true);
    }
    return iterator(m, iterated);
  }

  @Override
  public KeyValueIterator<String, V> all() {
    scans.incrementAndGet();
    return iterator(map, iterated);
  }

  @Override
  public long approximateNumEntries() {
    return map.size();
  }

  private static <V> KeyValueIterator<String, V> iterator(
      Map<String, V> m, java.util.concurrent.atomic.AtomicInteger iterated) {
    Iterator<Map.Entry<String, V>> it =
        new java.util.ArrayList<>(m.entrySet()).iterator(); // in m's order
    return new KeyValueIterator<>() {
      Map.Entry<String, V> peeked;

      @Override
      public boolean hasNext() {
        return peeked != null || it.hasNext();
      }

      @Override
      public KeyValue<String, V> next() {
        iterated.incrementAndGet();
        Map.Entry<String, V> e = peeked != null ? peeked : it.next();
        peeked = null;
        return KeyValue.pair(e.getKey(), e.getValue());
      }

      @Override
      public String peekNextKey() {
        if (peeked == null) {
          peeked = it.next();
        }
        return peeked.getKey();
      }

      @Override
      public void close() {}
    };
  }
}
