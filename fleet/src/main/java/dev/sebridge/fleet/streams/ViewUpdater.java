package dev.sebridge.fleet.streams;

import java.util.function.BiConsumer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps a global view store (every instance has all of it) as its topic says: put, or delete; and
 * tells the {@link ViewIndex} of each change and {@code applied} of each new value (with the one it
 * replaced) once it is queryable.
 */
final class ViewUpdater<V> implements Processor<String, V, Void, Void> {
  private final String storeName;
  private final BiConsumer<V, V> applied;
  private final ViewIndex index;
  private KeyValueStore<String, V> store;

  /**
   * @param index told of every change once the store has it, in the order applied
   */
  ViewUpdater(String storeName, BiConsumer<V, V> applied, ViewIndex index) {
    this.storeName = storeName;
    this.applied = applied;
    this.index = index;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.store = context.getStateStore(storeName);
  }

  @Override
  public void process(Record<String, V> record) {
    if (record.value() == null) {
      store.delete(record.key());
      index.changed(storeName, record.key(), null);
    } else {
      V old = store.get(record.key());
      store.put(record.key(), record.value());
      index.changed(storeName, record.key(), record.value());
      applied.accept(old, record.value());
    }
  }
}
