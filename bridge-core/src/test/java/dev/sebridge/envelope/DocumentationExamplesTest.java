package dev.sebridge.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.schemas.EnvelopeValidator;
import dev.sebridge.track.EventTracker;
import dev.sebridge.track.TrackerState;
import dev.sebridge.track.Transition;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The IMDS documents of the documentation still parse and make valid envelopes. */
class DocumentationExamplesTest {
  static final String[] SEQUENCE = {
    "{\"DocumentIncarnation\": 1, \"Events\": []}",
    """
    {"DocumentIncarnation": 2, "Events": [{"EventId": "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
      "EventStatus": "Scheduled", "EventType": "Freeze", "ResourceType": "VirtualMachine",
      "Resources": ["WestNO_0", "WestNO_1"], "NotBefore": "Mon, 11 Apr 2022 22:26:58 GMT",
      "Description": "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
      "EventSource": "Platform", "DurationInSeconds": 5}]}
    """,
    """
    {"DocumentIncarnation": 3, "Events": [{"EventId": "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
      "EventStatus": "Started", "EventType": "Freeze", "ResourceType": "VirtualMachine",
      "Resources": ["WestNO_0", "WestNO_1"], "NotBefore": "",
      "Description": "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
      "EventSource": "Platform", "DurationInSeconds": 5}]}
    """,
    "{\"DocumentIncarnation\": 4, \"Events\": []}",
    // Older api-versions: no DurationInSeconds, EventSource or Description; a numeric-string
    // duration.
    """
    {"DocumentIncarnation": 5, "Events": [{"EventId": "f020ba2e-3bc0-4c40-a10b-86575a9eabd5",
      "EventStatus": "Scheduled", "EventType": "Reboot", "ResourceType": "VirtualMachine",
      "Resources": ["FrontEnd_IN_0", "BackEnd_IN_0"], "NotBefore": "Mon, 19 Sep 2016 18:29:47 GMT"},
      {"EventId": "0B0C1D2E-0000-4000-8000-000000000009", "EventStatus": "Scheduled",
      "EventType": "Terminate", "Resources": ["WestNO_0"], "NotBefore": "2026-01-05T10:00:00Z",
      "DurationInSeconds": "-1", "EventSource": "User"}]}
    """
  };

  @Test
  void theDocumentedSequenceMakesValidEnvelopes() throws Exception {
    EventTracker tracker = new EventTracker(TrackerState.initial(), false, Duration.ofMinutes(5));
    EnvelopeFactory factory =
        new EnvelopeFactory(new AgentInfo("1.0.0", "WestNO_0"), Clock.systemUTC());
    VmIdentity vm = VmIdentity.of("02aab8a4-74ef-476e-8182-f6d2ba4166a6", "WestNO_0");
    Instant t = Instant.parse("2022-04-11T22:00:00Z");
    List<Envelope> out = new ArrayList<>();
    for (String json : SEQUENCE) {
      ScheduledEventsDocument doc = DocumentParser.parse(json.getBytes(StandardCharsets.UTF_8));
      EventTracker.Observation o = tracker.observe(doc, t);
      tracker.commit(o);
      for (Transition tr : o.transitions()) {
        out.add(factory.scheduledEvent(tr, vm));
      }
      t = t.plusSeconds(1);
    }
    assertThat(out)
        .extracting(Envelope::type)
        .containsExactly(
            "dev.sebridge.scheduledevent.scheduled.v1",
            "dev.sebridge.scheduledevent.started.v1",
            "dev.sebridge.scheduledevent.completed.v1",
            "dev.sebridge.scheduledevent.scheduled.v1",
            "dev.sebridge.scheduledevent.scheduled.v1");
    for (Envelope e : out) {
      assertThat(EnvelopeValidator.validate(e.body())).as(e.bodyAsString()).isEmpty();
    }
  }
}
