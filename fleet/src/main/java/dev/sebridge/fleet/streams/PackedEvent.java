package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.zip.DataFormatException;

/**
 * A closed event's view as the {@link ViewIndex} keeps it: packed ({@link ViewPacking}), about a
 * tenth of the view it reads back as. A closed view does not change, and a step reads only those
 * its ledger entries, rollouts and requests name ({@link IndexContents#event}): kept whole, a day
 * of closed events took about 1 KB each of the heap (benchmarks/FLEET-REPORT.md, "With a history of
 * closed events"). Equal when the views are (the same view packs into the same bytes).
 */
final class PackedEvent {
  private final byte[] bytes;

  private PackedEvent(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The view packed. */
  static PackedEvent of(EventView view) {
    try {
      return new PackedEvent(ViewPacking.pack(JsonSerde.JSON.writeValueAsBytes(view)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the view of " + view.eventId(), e);
    }
  }

  /** The view, read back. */
  EventView view() {
    try {
      return JsonSerde.JSON.readValue(ViewPacking.unpack(bytes), EventView.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read a packed view", e);
    } catch (DataFormatException e) {
      throw new IllegalStateException("cannot read a packed view", e);
    }
  }

  /** How many bytes it keeps. */
  int size() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PackedEvent p && Arrays.equals(bytes, p.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }
}
