package dev.sebridge.track;

import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.ScheduledEventsDocument;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns successive documents into transitions.
 *
 * <p>{@link #observe} computes what changed since the last committed state without changing
 * anything; {@link #commit} adopts the result once the transitions are durable downstream. A crash
 * in between makes the next observation produce the same transitions again, with the same ids.
 *
 * <p>Removals are classified from what was last seen: gone after Started is {@code completed}
 * (marked {@code inferred} when the agent was down or not polling for longer than the continuity
 * gap: the transition is certain, its time is not); gone while Scheduled is {@code canceled} when
 * the agent watched continuously, the event was never approved and NotBefore had not passed. When
 * the agent could not watch continuously (it was restarted, DocumentIncarnation skipped values, or
 * polls failed for longer than the continuity gap), the removal of a Scheduled event is its best
 * guess: {@code completed} if it was approved or NotBefore had passed, else {@code canceled},
 * marked {@code inferred}.
 */
public final class EventTracker {
  private final Duration continuityGap;
  private TrackerState committed;
  private boolean restored;

  /**
   * @param committed the state to start from (restored from disk, or {@link
   *     TrackerState#initial()})
   * @param restored true when {@code committed} comes from a previous run of the agent
   * @param continuityGap longer than this between two documents, the agent was not watching
   */
  public EventTracker(TrackerState committed, boolean restored, Duration continuityGap) {
    this.committed = Objects.requireNonNull(committed);
    this.restored = restored;
    this.continuityGap = continuityGap;
  }

  /** The result of comparing a document with the committed state. */
  public record Observation(
      TrackerState next, List<Transition> transitions, boolean stateChanged) {}

  public TrackerState state() {
    return committed;
  }

  /** True until the first observation after a restart is committed. */
  public boolean isRestored() {
    return restored;
  }

  public Observation observe(ScheduledEventsDocument doc, Instant now) {
    Map<String, KnownEvent> before = committed.events();
    Map<String, KnownEvent> after = new LinkedHashMap<>();
    List<Transition> out = new ArrayList<>();
    long inc = doc.incarnation();

    for (ScheduledEvent e : doc.events()) {
      KnownEvent known = before.get(e.key());
      if (known == null) {
        TransitionType t = e.isStarted() ? TransitionType.STARTED : TransitionType.SCHEDULED;
        out.add(new Transition(t, e, null, inc, now, false));
        after.put(e.key(), new KnownEvent(e, now, null));
        continue;
      }
      ScheduledEvent prev = known.event();
      if (!prev.raw().equals(e.raw())) {
        TransitionType t =
            !prev.isStarted() && e.isStarted() ? TransitionType.STARTED : TransitionType.UPDATED;
        out.add(new Transition(t, e, prev.eventStatus(), inc, now, false));
      }
      after.put(e.key(), known.withEvent(e));
    }

    boolean continuous = isContinuous(inc, now);
    boolean watching = isWatching(now);
    for (KnownEvent gone : before.values()) {
      if (after.containsKey(gone.event().key())) {
        continue;
      }
      out.add(removal(gone, inc, now, continuous, watching));
    }

    TrackerState next = new TrackerState(inc, now, after);
    boolean changed =
        restored || inc != committed.incarnation() || !out.isEmpty() || !sameEvents(before, after);
    return new Observation(next, List.copyOf(out), changed);
  }

  /**
   * Whether the agent was polling all along (not restarted, no gap longer than the continuity gap):
   * what it sees gone, it sees gone within a poll, whatever other changes it did not see.
   */
  private boolean isWatching(Instant now) {
    return !restored
        && committed.observedAt() != null
        && Duration.between(committed.observedAt(), now).compareTo(continuityGap) <= 0;
  }

  /** Watching, and no document missed in between. */
  private boolean isContinuous(long incarnation, Instant now) {
    return isWatching(now) && incarnation - committed.incarnation() <= 1;
  }

  private static Transition removal(
      KnownEvent gone, long inc, Instant now, boolean continuous, boolean watching) {
    ScheduledEvent e = gone.event();
    if (e.isStarted()) {
      // Certainly completed; but when the agent was down, not at this time: inferred. (Missed
      // documents alone do not make it so: polling all along, it saw it gone within a poll.)
      return new Transition(TransitionType.COMPLETED, e, e.eventStatus(), inc, now, !watching);
    }
    boolean approved = gone.approvedAt() != null;
    boolean due = e.notBefore() != null && !now.isBefore(e.notBefore());
    if (e.isScheduled() && continuous && !approved && !due) {
      return new Transition(TransitionType.CANCELED, e, e.eventStatus(), inc, now, false);
    }
    TransitionType guess =
        approved || due || !e.isScheduled() ? TransitionType.COMPLETED : TransitionType.CANCELED;
    return new Transition(guess, e, e.eventStatus(), inc, now, true);
  }

  private static boolean sameEvents(Map<String, KnownEvent> a, Map<String, KnownEvent> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    for (var entry : a.entrySet()) {
      if (!entry.getValue().equals(b.get(entry.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The common case, once a second: the same document as last time. Only the observation time moves
   * (it decides continuity); nothing is diffed or allocated per event. Returns false when the
   * document differs (or after a restart), and then {@link #observe} must be used.
   */
  public boolean touchIfUnchanged(ScheduledEventsDocument doc, Instant now) {
    if (restored
        || committed.observedAt() == null
        || doc.incarnation() != committed.incarnation()
        || doc.events().size() != committed.events().size()) {
      return false;
    }
    var known = committed.events().values().iterator();
    for (ScheduledEvent e : doc.events()) {
      if (!known.next().event().raw().equals(e.raw())) {
        return false;
      }
    }
    committed = new TrackerState(committed.incarnation(), now, committed.events());
    return true;
  }

  /** Adopts an observation whose transitions are durable downstream. */
  public void commit(Observation observation) {
    this.committed = observation.next();
    this.restored = false;
  }

  /**
   * Records that this agent approved an event; returns the new state to persist, or null when the
   * event is not known.
   */
  public TrackerState markApproved(String eventId, Instant at) {
    String key = eventId.toLowerCase(java.util.Locale.ROOT);
    KnownEvent k = committed.events().get(key);
    if (k == null) {
      return null;
    }
    Map<String, KnownEvent> events = new LinkedHashMap<>(committed.events());
    events.put(key, k.approved(at));
    committed = new TrackerState(committed.incarnation(), committed.observedAt(), events);
    return committed;
  }
}
