package dev.sebridge.fleet.api;

import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The maintenance campaigns ({@link Campaigns}), kept change by change as the events view applies
 * them, never by reading the view whole: of each event only what grouping needs (its key, kind,
 * first sighting, whether it is open and its NotBefore; each kind kept once), and of a closed one
 * what its campaign's counts need ({@link EventTally}); about 475 bytes a closed event of one VM,
 * 340 an open one (72.6 MiB for a day of closed events of a 100,000-VM fleet, 160,000 of them:
 * benchmarks/FLEET-REPORT.md, "The campaign index's heap"; forgotten with the event's view, {@code
 * fleet.closed-retention}). A list of campaigns is a walk over these, no JSON; a campaign an answer
 * shows reads its open events' views (kept) and none of its closed ones' ({@link CampaignView}).
 * Until 2026-11-29 every campaign list, campaign, and event's rollout form on the page read and
 * parsed every event view (open, and closed within {@code fleet.closed-retention}), and until later
 * that day each campaign shown read and parsed its closed events.
 *
 * <p>Written by the global thread only ({@link #keyChanged}); read by any. A reader computes the
 * campaigns once per change of the events view (the same list is shared until the next change); a
 * list computed during a change may miss that change, as a read of the store would.
 */
public final class CampaignIndex implements TopologyObserver {
  /**
   * What grouping needs of an event.
   *
   * @param key the event view's key
   * @param soonest open: its NotBefore, or {@link Instant#MIN} when it has none (started); closed:
   *     null
   * @param closed closed: what its campaign's counts take of it (its view is not read to count it);
   *     open: null (its view is kept, {@link FleetViews#eventByKey})
   */
  public record Sighting(
      String key,
      String eventId,
      List<String> kind,
      Instant firstSeenAt,
      Instant soonest,
      EventTally closed) {
    public boolean open() {
      return soonest != null;
    }

    static Sighting of(String key, EventView e, List<String> kind) {
      return new Sighting(
          key,
          e.eventId(),
          kind,
          e.firstSeenAt(),
          e.open() ? (e.notBefore() == null ? Instant.MIN : e.notBefore()) : null,
          e.open() ? null : EventTally.of(e));
    }
  }

  /**
   * A campaign as the index has it: its id and kind, its events' sightings in order.
   *
   * @param soonest its open events' soonest NotBefore ({@link Instant#MIN}: one has started; {@link
   *     Instant#MAX}: none is open)
   */
  public record Members(String id, List<String> kind, List<Sighting> events, Instant soonest) {
    public boolean open() {
      return !soonest.equals(Instant.MAX);
    }

    /** Whether this event (its view's key) is one of the campaign's. */
    public boolean has(String key) {
      return events.stream().anyMatch(s -> s.key().equals(key));
    }

    /**
     * Whether the campaign is of this type and source (any case) and holds this text in its
     * description or id (any case); a null or empty one is any.
     */
    public boolean matches(String type, String source, String text) {
      return (type == null || type.isEmpty() || kind.get(0).equalsIgnoreCase(type))
          && (source == null || source.isEmpty() || kind.get(1).equalsIgnoreCase(source))
          && ListAnswers.mentions(text == null || text.isEmpty() ? null : text, kind.get(2), id);
    }

    /**
     * Where it stands in {@code GET /api/campaigns}: its first event's first sighting (none last),
     * then its id; a string that sorts as they do (a cursor is one).
     */
    public String order() {
      Instant first = events.isEmpty() ? null : events.get(0).firstSeenAt();
      if (first == null) {
        return "~ " + id;
      }
      // The seconds with their sign bit flipped, unsigned: in order before 1970 too (an agent's
      // clock may say anything), then the nanos.
      String seconds = Long.toUnsignedString(first.getEpochSecond() ^ Long.MIN_VALUE);
      return "0".repeat(20 - seconds.length())
          + seconds
          + String.format(java.util.Locale.ROOT, "%09d", first.getNano())
          + " "
          + id;
    }
  }

  /** The order {@link Campaigns#of} groups in: first sighting (none last), then EventId. */
  static final Comparator<Sighting> BY_SIGHTING =
      Comparator.comparing(
              Sighting::firstSeenAt, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
          .thenComparing(Sighting::eventId, Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(Sighting::key);

  /** A kind's events; its kind kept once for all of them. */
  private record Kind(List<String> kind, NavigableSet<Sighting> events) {}

  /**
   * The global thread's changes take it to write; a reader computes under an optimistic read and
   * again under the read lock when a change came meanwhile: a list is never of a half-applied
   * change (a sighting removed and not yet put back where it moved).
   */
  private final java.util.concurrent.locks.StampedLock lock =
      new java.util.concurrent.locks.StampedLock();

  private final Map<String, Sighting> byKey = new ConcurrentHashMap<>();
  private final Map<List<String>, Kind> byKind = new ConcurrentHashMap<>();
  private final AtomicLong version = new AtomicLong();

  private record Computed(long version, List<Members> campaigns) {}

  private volatile Computed computed = new Computed(0, List.of());

  /** Run inside a change, before its old sighting goes (the race test holds a change there). */
  volatile Runnable midChange = () -> {};

  /**
   * An index of these events, keyed as the events view keys them (tests, and views without one).
   */
  public static CampaignIndex of(Collection<EventView> events) {
    CampaignIndex index = new CampaignIndex();
    for (EventView e : events) {
      index.keyChanged(
          FleetTopology.EVENTS_VIEW, e.eventId().toLowerCase(java.util.Locale.ROOT), e);
    }
    return index;
  }

  @Override
  public void keyChanged(String store, String key, Object value) {
    if (!store.equals(FleetTopology.EVENTS_VIEW)) {
      return;
    }
    if (value instanceof EventView e
        && Campaigns.counted(e)
        && sameSighting(byKey.get(key), key, e)) {
      return; // a VM's status changed: nothing grouping looks at (checked without the lock: the
      // global thread is the only writer)
    }
    long stamp = lock.writeLock();
    try {
      apply(key, value);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  private static boolean sameSighting(Sighting before, String key, EventView e) {
    return before != null
        && Campaigns.kind(e).equals(before.kind())
        && Sighting.of(key, e, before.kind()).equals(before);
  }

  private void apply(String key, Object value) {
    Sighting now = null;
    if (value instanceof EventView e && Campaigns.counted(e)) {
      Kind kind = byKind.get(Campaigns.kind(e));
      now = Sighting.of(key, e, kind == null ? Campaigns.kind(e) : kind.kind());
    }
    // (a change that moves nothing, a VM's status, returned before the lock: keyChanged)
    Sighting before = now == null ? byKey.remove(key) : byKey.put(key, now);
    if (before != null) {
      midChange.run();
      Kind kind = byKind.get(before.kind());
      kind.events().remove(before);
      if (kind.events().isEmpty()) {
        byKind.remove(before.kind());
      }
    }
    if (now != null) {
      byKind
          .computeIfAbsent(now.kind(), k -> new Kind(k, new ConcurrentSkipListSet<>(BY_SIGHTING)))
          .events()
          .add(now);
    }
    version.incrementAndGet();
  }

  /** Every campaign, as {@link Campaigns#of} orders them (first sighting of its first event). */
  public List<Members> campaigns() {
    Computed c = computed;
    if (c.version() == version.get()) {
      return c.campaigns();
    }
    long stamp = lock.tryOptimisticRead();
    Computed fresh = null;
    try {
      fresh = stamp == 0 ? null : compute();
    } catch (RuntimeException raced) {
      // a walk over a change half applied: validate() fails below, and it is done again
    }
    if (fresh == null || !lock.validate(stamp)) {
      stamp = lock.readLock();
      try {
        fresh = compute();
      } finally {
        lock.unlockRead(stamp);
      }
    }
    computed = fresh;
    return fresh.campaigns();
  }

  private Computed compute() {
    long v = version.get();
    List<Members> out = new ArrayList<>();
    for (Kind kind : byKind.values()) {
      List<Sighting> current = new ArrayList<>();
      for (Sighting s : kind.events()) {
        if (!current.isEmpty()
            && !Campaigns.together(
                current.get(0).firstSeenAt(),
                current.get(current.size() - 1).firstSeenAt(),
                s.firstSeenAt())) {
          out.add(members(current));
          current = new ArrayList<>();
        }
        current.add(s);
      }
      if (!current.isEmpty()) {
        out.add(members(current));
      }
    }
    out.sort(
        Comparator.comparing(
                (Members m) -> m.events().get(0).firstSeenAt(),
                Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
            .thenComparing(Members::id));
    return new Computed(v, List.copyOf(out));
  }

  /** The campaign with this id. */
  public Optional<Members> find(String id) {
    return campaigns().stream().filter(m -> m.id().equals(id)).findFirst();
  }

  /** An event's sighting as the index has it now (its view's key), or null. */
  Sighting sighting(String key) {
    return byKey.get(key);
  }

  /** The campaign an event (its view's key) is part of. */
  public Optional<Members> of(String key) {
    Sighting s = byKey.get(key);
    return s == null
        ? Optional.empty()
        : campaigns().stream().filter(m -> m.kind().equals(s.kind()) && m.has(key)).findFirst();
  }

  private static Members members(List<Sighting> events) {
    Instant soonest =
        events.stream()
            .map(Sighting::soonest)
            .filter(java.util.Objects::nonNull)
            .min(Comparator.naturalOrder())
            .orElse(Instant.MAX);
    List<String> kind = events.get(0).kind();
    return new Members(
        Campaigns.id(kind, events.get(0).firstSeenAt()), kind, List.copyOf(events), soonest);
  }
}
