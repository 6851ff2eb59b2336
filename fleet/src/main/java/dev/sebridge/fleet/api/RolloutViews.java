package dev.sebridge.fleet.api;

import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.fleet.rollout.RolloutParts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The rollouts as the API and the page read them ({@link FleetViews#rollouts}): a header each, put
 * together with its entries ({@link RolloutParts}) only for the rollouts an answer shows. A month
 * of finished rollouts ({@code fleet.history-retention}) can hold an entry for every VM of the
 * fleet; until 2026-11-29 an approval and the page put every one of them together.
 */
public final class RolloutViews {
  private final Supplier<ReadOnlyKeyValueStore<String, Rollout>> headers;
  private final Supplier<ReadOnlyKeyValueStore<String, RolloutPart>> parts; // null: stored whole

  RolloutViews(
      Supplier<ReadOnlyKeyValueStore<String, Rollout>> headers,
      Supplier<ReadOnlyKeyValueStore<String, RolloutPart>> parts) {
    this.headers = headers;
    this.parts = parts;
  }

  /** A rollout, its header and entries put together. */
  public Optional<Rollout> get(String id) {
    return Optional.ofNullable(headers.get().get(id)).map(this::assemble);
  }

  /**
   * Up to {@code n} rollouts' headers after the id {@code after} (null: from the first) that pass
   * {@code keep}, in id order (not put together: {@link #get} does that for those shown).
   */
  public KeyScans.Scanned<Rollout> after(String after, Predicate<Rollout> keep, int n) {
    return KeyScans.after(headers.get(), after, keep, n);
  }

  /**
   * Whether the rollout of {@code header} holds the event {@code eventId} (case-insensitive): its
   * spec (a rollout stored whole, or a header written whole before rollouts were split and not
   * stepped since), or its entry for the event, one key read. A split rollout's header has no event
   * ids.
   */
  public boolean holds(Rollout header, String eventId) {
    if (header.spec().eventIds().stream().anyMatch(eventId::equalsIgnoreCase)) {
      return true;
    }
    return parts != null
        && RolloutPart.splittable(header.id())
        && parts.get().get(RolloutPart.eventKey(header.id(), eventId)) != null;
  }

  /**
   * A rollout's events (those of its spec) and VMs, as its header and entries have them.
   *
   * @param read how many entries were read for them
   * @param complete false when the read stopped at the most it was given, entries left unread
   */
  public record Members(List<String> eventIds, List<String> vmIds, int read, boolean complete) {}

  /**
   * The events and VMs of the rollout of {@code header} (only those asked for: its events' entries
   * come first, its VMs' may be 20,000), reading at most {@code most} of its entries. A header
   * written whole (a rollout stored whole, or one written before rollouts were split and not
   * stepped since, as {@link RolloutParts#assemble} reads it) has them itself.
   */
  public Members members(Rollout header, int most, boolean events, boolean vms) {
    List<String> eventIds = new ArrayList<>(header.spec().eventIds());
    java.util.Set<String> vmIds = new java.util.LinkedHashSet<>();
    header.vms().values().forEach(v -> vmIds.add(v.vmId()));
    int read = 0;
    if (parts != null && RolloutPart.splittable(header.id())) {
      List<String> ranges = new ArrayList<>(2);
      if (events) {
        ranges.add(RolloutPart.eventsFrom(header.id()));
      }
      if (vms) {
        ranges.add(RolloutPart.vmsFrom(header.id()));
      }
      for (String from : ranges) {
        try (KeyValueIterator<String, RolloutPart> it =
            parts.get().range(from, RolloutPart.upTo(from))) {
          while (it.hasNext()) {
            if (read >= most) {
              return new Members(eventIds, List.copyOf(vmIds), read, false);
            }
            RolloutPart p = it.next().value;
            read++;
            // (an event's entry of no place in the spec is a report wait it outlived)
            if (p != null && p.event() != null && p.event().order() != null) {
              eventIds.add(p.event().eventId());
            }
            if (p != null && p.vm() != null) {
              vmIds.add(p.vm().vmId());
            }
          }
        }
      }
    }
    return new Members(eventIds, List.copyOf(vmIds), read, true);
  }

  /** Every rollout the views hold, put together (the demo's few; never on a request's path). */
  public List<Rollout> all() {
    return FleetViews.all(headers.get()).stream().map(this::assemble).toList();
  }

  /** The rollouts running or halted, put together; only the others' headers are read. */
  public List<Rollout> active() {
    return FleetViews.all(headers.get()).stream()
        .filter(Rollout::active)
        .map(this::assemble)
        .toList();
  }

  /**
   * Every rollout's header (entries not put together: {@link #assembled}), those running or halted
   * first, then the newest: the order the page lists them in.
   */
  public List<Rollout> ordered() {
    return FleetViews.all(headers.get()).stream()
        .sorted(
            Comparator.comparing((Rollout r) -> !r.active())
                .thenComparing(Rollout::createdAt, Comparator.nullsLast(Comparator.reverseOrder()))
                .thenComparing(Rollout::id))
        .toList();
  }

  /** A rollout of {@link #ordered} put together with its entries. */
  public Rollout assembled(Rollout header) {
    return assemble(header);
  }

  private Rollout assemble(Rollout header) {
    if (parts == null || !RolloutPart.splittable(header.id())) {
      return header;
    }
    List<RolloutPart> entries = new ArrayList<>();
    try (KeyValueIterator<String, RolloutPart> it =
        parts.get().range(RolloutPart.from(header.id()), RolloutPart.to(header.id()))) {
      it.forEachRemaining(kv -> entries.add(kv.value));
    }
    return RolloutParts.assemble(header, entries);
  }
}
