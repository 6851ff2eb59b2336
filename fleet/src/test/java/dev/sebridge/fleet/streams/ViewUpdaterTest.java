package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/**
 * A global view's updater tells where each record is in its topic: started before the store holds
 * it, done once all of it was told, and done also when applying it failed (the processing handler
 * counts such a record and goes on). Otherwise every page's mark naming that partition would wait
 * for a record no instance ever finishes, until the next one came.
 */
class ViewUpdaterTest {
  @Test
  void aRecordIsStartedBeforeTheStoreHoldsItAndDoneAfterAllOfItEvenWhenItFails() {
    MockProcessorContext<Void, Void> context = new MockProcessorContext<>();
    KeyValueStore<String, String> store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("events-view"), Serdes.String(), Serdes.String())
            .withLoggingDisabled()
            .build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    List<String> told = new ArrayList<>();
    TopologyObserver observer =
        new TopologyObserver() {
          @Override
          public void viewHeld(String s) {
            told.add("held " + s);
          }

          @Override
          public void viewRecordStarted(String s, int partition, long offset) {
            told.add("started " + partition + ":" + offset + " holds=" + store.get("k"));
          }

          @Override
          public void keyChanged(String s, String key, Object value) {
            told.add("changed " + key + "=" + value);
          }

          @Override
          public void viewRecordDone(String s, int partition, long offset) {
            told.add("done " + partition + ":" + offset);
          }
        };
    boolean[] fail = {false};
    ViewUpdater<String> updater =
        new ViewUpdater<>(
            "events-view",
            r -> {
              told.add("applied " + r.key());
              if (fail[0]) {
                throw new IllegalStateException("cannot tell of it");
              }
            },
            new ViewIndex(Membership.AGENTS, Runnable::run),
            observer);
    updater.init(context);
    context.setRecordMetadata("views-events", 3, 17);
    updater.process(new Record<>("k", "v1", 0L));
    fail[0] = true;
    context.setRecordMetadata("views-events", 3, 18);
    assertThatThrownBy(() -> updater.process(new Record<>("k", "v2", 0L)))
        .hasMessageContaining("cannot tell of it");
    context.setRecordMetadata("views-events", 3, 19);
    updater.process(new Record<>("k", null, 0L));
    assertThat(told)
        .containsExactly(
            "held events-view",
            "started 3:17 holds=null",
            "changed k=v1",
            "applied k",
            "done 3:17",
            "started 3:18 holds=v1",
            "changed k=v2",
            "applied k",
            "done 3:18",
            "started 3:19 holds=v2",
            "changed k=null",
            "done 3:19");
  }
}
