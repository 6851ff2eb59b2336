package dev.sebridge.fleet.streams;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.util.function.Predicate;
import java.util.zip.DataFormatException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The fleet service's own records (views, requests) as JSON, those it is told to pack packed
 * ({@link ViewPacking}: closed events' views).
 */
public final class JsonSerde<T> implements Serde<T> {
  /**
   * Field names are not canonicalised: the views are maps keyed by vmId and request id, hundreds of
   * thousands of names each seen in a few documents, and Jackson's symbol table copies itself (a
   * few hundred KiB) for every document that brings a name it has not seen, gigabytes a minute at
   * 100,000 VMs (benchmarks/FLEET-REPORT.md, "Tick at scale").
   */
  public static final ObjectMapper JSON =
      new ObjectMapper(
              com.fasterxml.jackson.core.JsonFactory.builder()
                  .disable(com.fasterxml.jackson.core.JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
                  .build())
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Class<T> type;
  private final Predicate<? super T> packs;
  private final boolean readsPacked; // the events' views only: no other record is ever packed

  /**
   * The value this serde last wrote on each thread, and its bytes, for one repeat. A processor puts
   * a view in its store and sends the same object to its view topic next, through the same serde:
   * the second write is the first one's bytes (writing views was 32 % of the stream thread's
   * samples at 100,000 VMs, each written twice; benchmarks/FLEET-REPORT.md). By identity, so only
   * that very object, and only as the next write of this serde on the thread: the views'
   * collections cannot be changed at all, and no code changes any other value between writing it
   * and writing it again. The bytes are only ever read (by the store, the producer).
   */
  private final ThreadLocal<Written> last = new ThreadLocal<>();

  private record Written(Object value, byte[] bytes) {}

  public JsonSerde(Class<T> type) {
    this(type, v -> false, false);
  }

  /** The events' views: a closed event's packed, an open one's JSON (it changes as its VMs do). */
  public static JsonSerde<dev.sebridge.fleet.model.EventView> eventViews() {
    return eventViews(true);
  }

  /**
   * The events' views, read packed or not; written packed when closed and {@code pack} ({@code
   * fleet.closed-views-packed}), as JSON otherwise.
   */
  public static JsonSerde<dev.sebridge.fleet.model.EventView> eventViews(boolean pack) {
    return new JsonSerde<>(dev.sebridge.fleet.model.EventView.class, e -> pack && !e.open(), true);
  }

  /**
   * @param packs which values are written packed ({@link ViewPacking})
   * @param readsPacked whether a packed record is read (a serde of the events' views), or is not
   *     JSON like any other
   */
  JsonSerde(Class<T> type, Predicate<? super T> packs, boolean readsPacked) {
    this.type = type;
    this.packs = packs;
    this.readsPacked = readsPacked;
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> {
      if (value == null) {
        return null;
      }
      Written w = last.get();
      if (w != null && w.value() == value) {
        last.remove();
        return w.bytes();
      }
      try {
        byte[] json = JSON.writeValueAsBytes(value);
        byte[] bytes = packs.test(value) ? ViewPacking.pack(json) : json;
        last.set(new Written(value, bytes));
        return bytes;
      } catch (IOException e) {
        throw new SerializationException("cannot write " + type.getSimpleName(), e);
      }
    };
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> read(bytes);
  }

  /**
   * The deserializer of a global store's source: the value it reads, written next on the same
   * thread through this serde (its updater puts it in the store, which writes it), is written as
   * the bytes it was read from. At 100,000 VMs writing each view read from its topic again was
   * about a fifth of the global thread's samples (benchmarks/FLEET-REPORT.md). The same rule as the
   * serializer's repeat: that very object, once, on this thread; the store then holds the topic's
   * bytes, which read back as the same value.
   */
  public Deserializer<T> sourceDeserializer() {
    return (topic, bytes) -> {
      T value = read(bytes);
      if (value != null) {
        last.set(new Written(value, bytes));
      }
      return value;
    };
  }

  private T read(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return JSON.readValue(
          readsPacked && ViewPacking.packed(bytes) ? ViewPacking.unpack(bytes) : bytes, type);
    } catch (IOException | DataFormatException e) {
      throw new SerializationException("not a " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }
}
