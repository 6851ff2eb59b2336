package dev.sebridge.track;

import static dev.sebridge.track.TransitionType.CANCELED;
import static dev.sebridge.track.TransitionType.COMPLETED;
import static dev.sebridge.track.TransitionType.SCHEDULED;
import static dev.sebridge.track.TransitionType.STARTED;
import static dev.sebridge.track.TransitionType.UPDATED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.ScheduledEventsDocument;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventTrackerTest {
  static final Instant T0 = Instant.parse("2022-04-11T22:00:00Z");
  static final String ID = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";

  static ScheduledEventsDocument doc(long inc, String... events) {
    String json =
        "{\"DocumentIncarnation\":" + inc + ",\"Events\":[" + String.join(",", events) + "]}";
    try {
      return DocumentParser.parse(json.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static String event(String id, String status, String type, String notBefore) {
    return "{\"EventId\":\""
        + id
        + "\",\"EventStatus\":\""
        + status
        + "\",\"EventType\":\""
        + type
        + "\",\"ResourceType\":\"VirtualMachine\",\"Resources\":[\"WestNO_0\",\"WestNO_1\"],"
        + "\"NotBefore\":\""
        + notBefore
        + "\",\"Description\":\"d\",\"EventSource\":\"Platform\",\"DurationInSeconds\":5}";
  }

  static EventTracker fresh() {
    return new EventTracker(TrackerState.initial(), false, Duration.ofSeconds(30));
  }

  static List<Transition> step(EventTracker t, ScheduledEventsDocument d, Instant at) {
    EventTracker.Observation o = t.observe(d, at);
    t.commit(o);
    return o.transitions();
  }

  @Test
  void theDocumentationsExampleSequence() {
    // Incarnation 1: no events. 2: Freeze Scheduled. 3: same EventId Started. 4: no events.
    EventTracker t = fresh();
    assertThat(step(t, doc(1), T0)).isEmpty();
    List<Transition> two =
        step(
            t,
            doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")),
            T0.plusSeconds(1));
    assertThat(two).extracting(Transition::type).containsExactly(SCHEDULED);
    assertThat(two.get(0).incarnation()).isEqualTo(2);
    assertThat(two.get(0).previousStatus()).isNull();
    List<Transition> three = step(t, doc(3, event(ID, "Started", "Freeze", "")), T0.plusSeconds(2));
    assertThat(three).extracting(Transition::type).containsExactly(STARTED);
    assertThat(three.get(0).previousStatus()).isEqualTo("Scheduled");
    List<Transition> four = step(t, doc(4), T0.plusSeconds(3));
    assertThat(four).extracting(Transition::type).containsExactly(COMPLETED);
    assertThat(four.get(0).inferred()).isFalse();
    assertThat(four.get(0).incarnation()).isEqualTo(4);
    assertThat(t.state().events()).isEmpty();
  }

  @Test
  void sameDocumentTwiceChangesNothing() {
    EventTracker t = fresh();
    ScheduledEventsDocument d =
        doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT"));
    step(t, d, T0);
    EventTracker.Observation again = t.observe(d, T0.plusSeconds(1));
    assertThat(again.transitions()).isEmpty();
    assertThat(again.stateChanged()).isFalse();
  }

  @Test
  void anUnchangedDocumentOnlyMovesTheObservationTime() {
    EventTracker t = fresh();
    ScheduledEventsDocument d =
        doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT"));
    assertThat(t.touchIfUnchanged(d, T0)).isFalse(); // nothing observed yet
    step(t, d, T0);
    assertThat(t.touchIfUnchanged(d, T0.plusSeconds(20))).isTrue();
    assertThat(t.state().observedAt()).isEqualTo(T0.plusSeconds(20));
    // Continuity follows the touched time: 25 s after the last touch is still within the 30 s gap.
    List<Transition> tr = step(t, doc(3), T0.plusSeconds(45));
    assertThat(tr.get(0).inferred()).isFalse();
    // Same incarnation, different content (never seen from IMDS, but possible): not a touch.
    step(t, d, T0.plusSeconds(46));
    ScheduledEventsDocument other = doc(4, event(ID, "Started", "Freeze", ""));
    assertThat(t.touchIfUnchanged(doc(2, event(ID, "Started", "Freeze", "")), T0.plusSeconds(47)))
        .isFalse();
    assertThat(t.touchIfUnchanged(other, T0.plusSeconds(47))).isFalse();
    EventTracker restored = new EventTracker(t.state(), true, Duration.ofSeconds(30));
    assertThat(restored.touchIfUnchanged(d, T0.plusSeconds(48))).isFalse();
  }

  @Test
  void hardwareFailureIsStartedWithoutAScheduledPhase() {
    EventTracker t = fresh();
    step(t, doc(1), T0);
    List<Transition> tr = step(t, doc(2, event(ID, "Started", "Reboot", "")), T0.plusSeconds(1));
    assertThat(tr).extracting(Transition::type).containsExactly(STARTED);
    assertThat(tr.get(0).previousStatus()).isNull();
    assertThat(step(t, doc(3), T0.plusSeconds(2)))
        .extracting(Transition::type)
        .containsExactly(COMPLETED);
  }

  @Test
  void cancellationBeforeNotBeforeWhileWatchingIsCertain() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Redeploy", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    List<Transition> tr = step(t, doc(3), T0.plusSeconds(1));
    assertThat(tr).extracting(Transition::type).containsExactly(CANCELED);
    assertThat(tr.get(0).inferred()).isFalse();
  }

  @Test
  void movedNotBeforeIsAnUpdate() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    List<Transition> tr =
        step(
            t,
            doc(3, event(ID, "Scheduled", "Reboot", "Mon, 11 Apr 2022 23:26:58 GMT")),
            T0.plusSeconds(1));
    assertThat(tr).extracting(Transition::type).containsExactly(UPDATED);
    assertThat(tr.get(0).event().notBefore()).isEqualTo(Instant.parse("2022-04-11T23:26:58Z"));
  }

  @Test
  void eventIdsCompareCaseInsensitively() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    List<Transition> tr =
        step(t, doc(3, event(ID.toLowerCase(), "Started", "Freeze", "")), T0.plusSeconds(1));
    assertThat(tr).extracting(Transition::type).containsExactly(STARTED);
  }

  @Test
  void removalAfterARestartIsInferredFromNotBefore() {
    EventTracker before = fresh();
    step(before, doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    // The agent dies; it comes back after NotBefore and the event is gone: it most likely ran.
    EventTracker after = new EventTracker(before.state(), true, Duration.ofSeconds(30));
    List<Transition> tr = step(after, doc(4), Instant.parse("2022-04-11T23:00:00Z"));
    assertThat(tr).extracting(Transition::type).containsExactly(COMPLETED);
    assertThat(tr.get(0).inferred()).isTrue();
    // Back before NotBefore: most likely canceled, still a guess.
    EventTracker early = new EventTracker(before.state(), true, Duration.ofSeconds(30));
    List<Transition> tr2 = step(early, doc(3), T0.plusSeconds(10));
    assertThat(tr2).extracting(Transition::type).containsExactly(CANCELED);
    assertThat(tr2.get(0).inferred()).isTrue();
  }

  @Test
  void skippedIncarnationsMakeARemovalInferred() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    // 3 (Started) was missed: 4 shows it gone, before NotBefore as far as we know.
    List<Transition> tr = step(t, doc(4), T0.plusSeconds(1));
    assertThat(tr).extracting(Transition::type).containsExactly(CANCELED);
    assertThat(tr.get(0).inferred()).isTrue();
  }

  @Test
  void aLongPollingGapMakesARemovalInferred() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    List<Transition> tr = step(t, doc(3), T0.plusSeconds(120));
    assertThat(tr.get(0).inferred()).isTrue();
  }

  @Test
  void anApprovedEventThatVanishedCompleted() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Reboot", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    assertThat(t.markApproved(ID.toLowerCase(), T0.plusSeconds(1))).isNotNull();
    List<Transition> tr = step(t, doc(3), T0.plusSeconds(2));
    assertThat(tr).extracting(Transition::type).containsExactly(COMPLETED);
    assertThat(tr.get(0).inferred()).isTrue();
    assertThat(t.markApproved("unknown", T0)).isNull();
  }

  /**
   * Gone after Started while the agent was down: completed for sure, but not at the time the agent
   * saw it gone, so it is marked inferred (it used to say {@code inferred: false}). Watched live,
   * the same removal is not inferred.
   */
  @Test
  void startedEventRemovedAfterRestartIsCompletedForSureAtAnUnknownTime() {
    EventTracker before = fresh();
    step(before, doc(3, event(ID, "Started", "Reboot", "")), T0);
    EventTracker after = new EventTracker(before.state(), true, Duration.ofSeconds(30));
    List<Transition> tr = step(after, doc(9), T0.plusSeconds(3600));
    assertThat(tr).extracting(Transition::type).containsExactly(COMPLETED);
    assertThat(tr.get(0).inferred()).isTrue();

    EventTracker live = fresh();
    step(live, doc(3, event(ID, "Started", "Reboot", "")), T0);
    // Polling all along, with documents missed in between (DocumentIncarnation 3 -> 6): seen gone
    // within a poll, so not inferred.
    List<Transition> watched = step(live, doc(6), T0.plusSeconds(1));
    assertThat(watched).extracting(Transition::type).containsExactly(COMPLETED);
    assertThat(watched.get(0).inferred()).isFalse();
  }

  @Test
  void severalEventsInOneDocumentAreAllReported() {
    EventTracker t = fresh();
    List<Transition> tr =
        step(
            t,
            doc(
                5,
                event("A", "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT"),
                event("B", "Started", "Reboot", ""),
                event("C", "Scheduled", "Terminate", "Mon, 11 Apr 2022 22:26:58 GMT")),
            T0);
    assertThat(tr).extracting(Transition::type).containsExactly(SCHEDULED, STARTED, SCHEDULED);
    List<Transition> next =
        step(
            t,
            doc(6, event("B", "Started", "Reboot", ""), event("C", "Started", "Terminate", "")),
            T0.plusSeconds(1));
    assertThat(next)
        .extracting(x -> x.event().eventId() + ":" + x.type())
        .containsExactly("C:STARTED", "A:CANCELED");
  }

  @Test
  void observingDoesNotChangeTheCommittedStateUntilCommit() {
    EventTracker t = fresh();
    EventTracker.Observation o =
        t.observe(doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    assertThat(t.state().events()).isEmpty();
    // Not committed (sink down, crash): the same document gives the same transitions again.
    EventTracker.Observation again =
        t.observe(
            doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")),
            T0.plusSeconds(1));
    assertThat(again.transitions()).hasSameSizeAs(o.transitions());
    assertThat(again.transitions().get(0).incarnation())
        .isEqualTo(o.transitions().get(0).incarnation());
  }

  @Test
  void stateSurvivesTheCodec() {
    EventTracker t = fresh();
    step(t, doc(2, event(ID, "Scheduled", "Freeze", "Mon, 11 Apr 2022 22:26:58 GMT")), T0);
    t.markApproved(ID, T0.plusSeconds(5));
    TrackerState back = TrackerStateCodec.read(TrackerStateCodec.write(t.state()));
    assertThat(back).isEqualTo(t.state());
  }
}
