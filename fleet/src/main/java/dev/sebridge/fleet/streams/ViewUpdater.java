package dev.sebridge.fleet.streams;

import java.util.function.Consumer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps a global view store (every instance has all of it) as its topic says: put, or delete; and
 * tells {@code applied} of each new value once it is queryable.
 */
final class ViewUpdater<V> implements Processor<String, V, Void, Void> {
  private final String storeName;
  private final Consumer<V> applied;
  private KeyValueStore<String, V> store;

  ViewUpdater(String storeName, Consumer<V> applied) {
    this.storeName = storeName;
    this.applied = applied;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.store = context.getStateStore(storeName);
  }

  @Override
  public void process(Record<String, V> record) {
    if (record.value() == null) {
      store.delete(record.key());
    } else {
      store.put(record.key(), record.value());
      applied.accept(record.value());
    }
  }
}
