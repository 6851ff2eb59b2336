package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.fleet.model.CentralReport;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.Source;
import dev.sebridge.fleet.model.VmEventState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

/**
 * Closed events' views are packed where they are kept (the events' view topic and stores, the view
 * index) and read back as they were; open ones, and every view written before, stay JSON.
 */
class ViewPackingTest {
  static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

  /** A host update's closed one-VM event, as the benchmarks' history writes them. */
  static EventView hostUpdate(String id, int vm) {
    String vmId = String.format("%08x-1111-4222-8333-%012x", vm, vm);
    return new EventView(
        id,
        "Reboot",
        "Platform",
        T0.minusSeconds(1200),
        -1,
        "Host update",
        List.of("web-" + vm),
        T0.minusSeconds(7200),
        T0,
        T0,
        Map.of(
            vmId,
            new VmEventState(
                vmId, "web-" + vm, "2", "ss-" + vm % 100, "completed", null, T0, null)),
        null,
        Source.AGENT,
        T0);
  }

  @Test
  void aClosedViewIsWrittenPackedAndReadsBackAsItWas() {
    JsonSerde<EventView> serde = JsonSerde.eventViews();
    EventView closed = hostUpdate("0000ABCD-0000-4000-8000-00000004F3A1", 1234);
    byte[] json = new JsonSerde<>(EventView.class).serializer().serialize("t", closed);
    byte[] packed = serde.serializer().serialize("t", closed);
    assertThat(packed[0]).isEqualTo(ViewPacking.PACKED);
    assertThat(packed.length).as("packed, against %d bytes of JSON", json.length).isLessThan(180);
    assertThat(serde.deserializer().deserialize("t", packed)).isEqualTo(closed);
    // The events' views read it, packing or not (fleet.closed-views-packed), the global stores'
    // sources too; no other record is packed, and another serde takes it for what it is: not JSON.
    assertThat(JsonSerde.eventViews(false).deserializer().deserialize("t", packed))
        .isEqualTo(closed);
    assertThat(serde.sourceDeserializer().deserialize("t", packed)).isEqualTo(closed);
    assertThatThrownBy(
            () -> new JsonSerde<>(EventView.class).deserializer().deserialize("t", packed))
        .isInstanceOf(SerializationException.class);
    // Not packing: written as JSON.
    assertThat(JsonSerde.eventViews(false).serializer().serialize("t", closed)).isEqualTo(json);
  }

  @Test
  void anOpenViewAndEveryViewWrittenBeforeAreJson() {
    JsonSerde<EventView> serde = JsonSerde.eventViews();
    EventView closed = hostUpdate("e-1", 1);
    EventView open =
        new EventView(
            "e-1",
            "Reboot",
            "Platform",
            T0,
            -1,
            "Host update",
            List.of("web-1"),
            T0,
            T0,
            null,
            closed.vms(),
            null,
            Source.AGENT,
            T0);
    byte[] bytes = serde.serializer().serialize("t", open);
    assertThat(bytes[0]).isEqualTo((byte) '{');
    assertThat(serde.deserializer().deserialize("t", bytes)).isEqualTo(open);
    byte[] before = new JsonSerde<>(EventView.class).serializer().serialize("t", closed);
    assertThat(before[0]).isEqualTo((byte) '{');
    assertThat(serde.deserializer().deserialize("t", before)).isEqualTo(closed);
  }

  /** Whatever a closed view holds (Azure's word, approvals, guesses, many VMs) comes back. */
  @Property(tries = 300)
  void everyClosedViewReadsBackAsItWas(@ForAll long seed) {
    Random rnd = new Random(seed);
    EventView v = ViewIndexTest.Fleet.event(rnd, "e-" + rnd.nextInt(100));
    if (rnd.nextBoolean()) {
      v =
          v.withCentral(
              new CentralReport(
                  dev.sebridge.fleet.agentless.AzureEventStatus.values()[rnd.nextInt(4)],
                  "/subscriptions/s/resourceGroups/rg-" + rnd.nextInt(9) + "/providers/x",
                  List.of("vm-" + rnd.nextInt(30)),
                  T0,
                  T0.plusSeconds(rnd.nextInt(600))),
              Source.AZURE);
    }
    JsonSerde<EventView> serde = JsonSerde.eventViews();
    byte[] bytes = serde.serializer().serialize("t", v);
    assertThat(ViewPacking.packed(bytes)).isEqualTo(!v.open());
    assertThat(serde.deserializer().deserialize("t", bytes)).isEqualTo(v);
    if (!v.open()) {
      assertThat(PackedEvent.of(v).view()).isEqualTo(v);
      assertThat(PackedEvent.of(v)).isEqualTo(PackedEvent.of(v));
    }
  }

  /**
   * A record packed on 2026-11-29 reads back (the views keep a closed event a day, and an upgrade
   * reads the topics whole): the dictionary is part of the format, and changing it fails here.
   */
  @Test
  void aRecordPackedBeforeReadsBackAndTheDictionaryIsTheSame() {
    CRC32 crc = new CRC32();
    crc.update(ViewPacking.DICTIONARY);
    assertThat(crc.getValue()).as("the dictionary's CRC-32").isEqualTo(DICTIONARY_CRC);
    byte[] packed = Base64.getDecoder().decode(PACKED_BEFORE);
    assertThat(JsonSerde.eventViews().deserializer().deserialize("t", packed))
        .isEqualTo(hostUpdate("0000ABCD-0000-4000-8000-00000004F3A1", 1234));
  }

  @Test
  void aDamagedOrForeignRecordIsAnErrorNeverAView() {
    JsonSerde<EventView> serde = JsonSerde.eventViews();
    byte[] packed = serde.serializer().serialize("t", hostUpdate("e-1", 1));
    byte[] cut = Arrays.copyOf(packed, packed.length - 5);
    byte[] flipped = packed.clone();
    flipped[packed.length / 2] ^= 0x20;
    byte[] longer = Arrays.copyOf(packed, packed.length + 1);
    // Packed against another dictionary: the record names the one it needs.
    Deflater d = new Deflater();
    d.setDictionary("another dictionary".getBytes(StandardCharsets.US_ASCII));
    d.setInput(new JsonSerde<>(EventView.class).serializer().serialize("t", hostUpdate("e", 1)));
    d.finish();
    byte[] out = new byte[1024];
    int n = d.deflate(out);
    byte[] foreign = new byte[n + 1];
    foreign[0] = ViewPacking.PACKED;
    System.arraycopy(out, 0, foreign, 1, n);
    for (byte[] bad : List.of(cut, flipped, longer, foreign, new byte[] {ViewPacking.PACKED})) {
      assertThatThrownBy(() -> serde.deserializer().deserialize("t", bad))
          .isInstanceOf(SerializationException.class)
          .hasMessageStartingWith("not a EventView");
    }
  }

  /** A view no reader would unpack (over {@link ViewPacking#MAX_UNPACKED}) is kept as it is. */
  @Test
  void aViewLargerThanAnyReaderUnpacksIsNotPacked() throws Exception {
    byte[] big = new byte[ViewPacking.MAX_UNPACKED + 1];
    java.util.Arrays.fill(big, (byte) ' ');
    big[0] = '{';
    assertThat(ViewPacking.pack(big)).isSameAs(big);
    byte[] fits = java.util.Arrays.copyOf(big, ViewPacking.MAX_UNPACKED);
    assertThat(ViewPacking.unpack(ViewPacking.pack(fits))).isEqualTo(fits);
  }

  /** The view index keeps a closed view too large to pack as it is, and reads it back. */
  @Test
  void theIndexReadsBackAClosedViewTooLargeToPack() {
    EventView v = hostUpdate("e-big", 1);
    EventView big =
        new EventView(
            v.eventId(),
            v.eventType(),
            v.eventSource(),
            v.notBefore(),
            v.durationInSeconds(),
            "x".repeat(ViewPacking.MAX_UNPACKED),
            v.resources(),
            v.firstSeenAt(),
            v.lastSeenAt(),
            v.closedAt(),
            v.vms(),
            v.central(),
            v.firstSeenBy(),
            v.reportedAt());
    assertThat(PackedEvent.of(big).view()).isEqualTo(big);
  }

  static final long DICTIONARY_CRC = 639679986L;
  static final String PACKED_BEFORE =
      "AXj52Z39zkMOGgMgcHRydtEFMXRNQIQFiDCAABM3Y0dDioLPyMDITNfQUNfIMsTA0srEAOwIyoO0PDVJ19DI2AQzaJEttADaBrUQ"
          + "JbiR1BgaINQgRQEOFdBogYRNihFQBVCNiZGRka6FsbExLNTAckhRR5RyePTCvQaPZiPUeC4u1gXL4o1srB6orcXIcdhyGna9"
          + "AHnlmqE=";
}
