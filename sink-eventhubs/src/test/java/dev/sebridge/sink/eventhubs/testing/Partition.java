package dev.sebridge.sink.eventhubs.testing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** One partition's log: never truncated, offsets are byte positions as in the service. */
final class Partition {
  final String hub;
  final String id;
  private final List<StoredEvent> log = new ArrayList<>();
  private long nextOffset;

  Partition(String hub, String id) {
    this.hub = hub;
    this.id = id;
  }

  /** Appends a batch atomically: all of it gets consecutive sequence numbers. */
  synchronized void append(List<byte[]> encodedMessages, String partitionKey) {
    Instant now = Instant.now();
    for (byte[] m : encodedMessages) {
      log.add(new StoredEvent(id, log.size(), Long.toString(nextOffset), now, partitionKey, m));
      nextOffset += m.length;
    }
  }

  synchronized int size() {
    return log.size();
  }

  synchronized StoredEvent get(int index) {
    return log.get(index);
  }

  synchronized List<StoredEvent> snapshot() {
    return List.copyOf(log);
  }

  synchronized StoredEvent last() {
    return log.isEmpty() ? null : log.get(log.size() - 1);
  }

  /** The index of the first event matching, or the end of the log. */
  synchronized int firstIndex(Predicate<StoredEvent> from) {
    for (int i = 0; i < log.size(); i++) {
      if (from.test(log.get(i))) {
        return i;
      }
    }
    return log.size();
  }
}
