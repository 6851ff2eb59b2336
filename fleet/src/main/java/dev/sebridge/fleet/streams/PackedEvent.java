package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.EventView;
import java.util.Arrays;

/**
 * A closed event's view as the {@link ViewIndex} keeps it: as the events' view topic has it ({@link
 * JsonSerde#eventViews}: packed, {@link ViewPacking}, about a quarter of its JSON), read back when
 * a step asks for it ({@link ClosedViews}). A closed view does not change, and a step reads only
 * those its ledger entries, rollouts and requests name: kept whole, a day of closed events took
 * about 1 KB each of the heap (benchmarks/FLEET-REPORT.md, "With a history of closed events").
 * Equal when the views are (the same view is written as the same bytes).
 */
final class PackedEvent {
  private static final JsonSerde<EventView> VIEWS = JsonSerde.eventViews();

  private final byte[] bytes;

  private PackedEvent(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The view packed (one too large to pack as JSON). */
  static PackedEvent of(EventView view) {
    return new PackedEvent(VIEWS.serializer().serialize(null, view));
  }

  /** The view, read back. */
  EventView view() {
    return VIEWS.deserializer().deserialize(null, bytes);
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
