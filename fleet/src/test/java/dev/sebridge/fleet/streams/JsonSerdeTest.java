package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.VmView;
import java.time.Instant;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

class JsonSerdeTest {
  static VmView view(String vmId, String zone) {
    return new VmView(
        vmId,
        vmId,
        null,
        null,
        "rg",
        "westeurope",
        zone,
        null,
        "1.0",
        Instant.parse("2026-11-27T00:00:00Z"),
        Instant.parse("2026-11-27T00:00:00Z"),
        null,
        60,
        java.util.Map.of("total", 3L),
        false,
        java.util.Set.of("E1"));
  }

  /**
   * A view put in its store and then sent to its view topic is written once: the second write of
   * that very object is the first one's bytes. An equal but other object, or another value in
   * between, is written anew, and every write reads back as its value.
   */
  @Test
  void theSameObjectTwiceInARowIsWrittenOnce() {
    JsonSerde<VmView> serde = new JsonSerde<>(VmView.class);
    Serializer<VmView> store = serde.serializer();
    Serializer<VmView> sink = serde.serializer();
    VmView a = view("vm-a", "1");
    byte[] first = store.serialize("store", a);
    assertThat(sink.serialize("views", a)).isSameAs(first);
    assertThat(sink.serialize("views", a)).as("one repeat only").isNotSameAs(first);
    assertThat(a.openEvents()).isUnmodifiable();
    VmView equal = view("vm-a", "1");
    byte[] again = sink.serialize("views", equal);
    assertThat(again).isNotSameAs(first).isEqualTo(first);
    VmView b = view("vm-b", "2");
    assertThat(serde.deserializer().deserialize("views", store.serialize("store", b))).isEqualTo(b);
    assertThat(serde.deserializer().deserialize("views", sink.serialize("views", a))).isEqualTo(a);
    assertThat(store.serialize("store", null)).isNull();
  }

  /** Another thread never gets this thread's bytes. */
  @Test
  void eachThreadWritesForItself() throws Exception {
    JsonSerde<VmView> serde = new JsonSerde<>(VmView.class);
    VmView a = view("vm-a", "1");
    byte[] here = serde.serializer().serialize("views", a);
    byte[][] there = new byte[1][];
    Thread t = new Thread(() -> there[0] = serde.serializer().serialize("views", a));
    t.start();
    t.join();
    assertThat(there[0]).isNotSameAs(here).isEqualTo(here);
  }

  /**
   * A global store's updater puts the value its source read: the store is handed the bytes read,
   * once, and they read back as the value. The store's own deserializer (the API's threads read
   * through it) keeps nothing.
   */
  @Test
  void aValueAGlobalStoresSourceReadIsWrittenAsTheBytesItWasReadFrom() throws Exception {
    JsonSerde<VmView> serde = new JsonSerde<>(VmView.class);
    VmView a = view("vm-a", "1");
    byte[] topic = JsonSerde.JSON.writeValueAsBytes(a);
    VmView read = serde.sourceDeserializer().deserialize("views", topic);
    assertThat(read).isEqualTo(a);
    byte[] stored = serde.serializer().serialize("store", read);
    assertThat(stored).isSameAs(topic);
    assertThat(serde.deserializer().deserialize("store", stored)).isEqualTo(a);
    assertThat(serde.serializer().serialize("store", read)).isNotSameAs(topic).isEqualTo(topic);
    VmView readByTheApi = serde.deserializer().deserialize("store", topic);
    assertThat(serde.serializer().serialize("store", readByTheApi))
        .isNotSameAs(topic)
        .isEqualTo(topic);
    assertThat(serde.sourceDeserializer().deserialize("views", null)).isNull();
  }
}
