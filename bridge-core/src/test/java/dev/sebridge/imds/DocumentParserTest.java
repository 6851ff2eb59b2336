package dev.sebridge.imds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DocumentParserTest {

  /** The example of the documentation, verbatim. */
  static final String DOC_EXAMPLE =
      """
      {
        "DocumentIncarnation": 2,
        "Events": [
          {
            "EventId": "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
            "EventStatus": "Scheduled",
            "EventType": "Freeze",
            "ResourceType": "VirtualMachine",
            "Resources": ["WestNO_0", "WestNO_1"],
            "NotBefore": "Mon, 11 Apr 2022 22:26:58 GMT",
            "Description": "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
            "EventSource": "Platform",
            "DurationInSeconds": 5
          }
        ]
      }
      """;

  static ScheduledEventsDocument parse(String json) throws MalformedDocumentException {
    return DocumentParser.parse(json.getBytes(UTF_8));
  }

  @Test
  void readsTheDocumentationExample() throws Exception {
    ScheduledEventsDocument d = parse(DOC_EXAMPLE);
    assertThat(d.incarnation()).isEqualTo(2);
    ScheduledEvent e = d.events().get(0);
    assertThat(e.eventId()).isEqualTo("C7061BAC-AFDC-4513-B24B-AA5F13A16123");
    assertThat(e.key()).isEqualTo("c7061bac-afdc-4513-b24b-aa5f13a16123");
    assertThat(e.isScheduled()).isTrue();
    assertThat(e.eventType()).isEqualTo("Freeze");
    assertThat(e.resources()).containsExactly("WestNO_0", "WestNO_1");
    assertThat(e.notBefore()).isEqualTo(Instant.parse("2022-04-11T22:26:58Z"));
    assertThat(e.durationInSeconds()).hasValue(5);
    assertThat(e.eventSource()).hasValue("Platform");
    assertThat(e.lists("westno_1")).isTrue();
    assertThat(e.lists("WestNO_2")).isFalse();
  }

  @Test
  void emptyListIsAValidDocument() throws Exception {
    ScheduledEventsDocument d = parse("{\"DocumentIncarnation\": 1, \"Events\": []}");
    assertThat(d.incarnation()).isEqualTo(1);
    assertThat(d.events()).isEmpty();
  }

  @Test
  void keepsUnknownFieldsAndValuesVerbatim() throws Exception {
    ScheduledEventsDocument d =
        parse(
            """
            {"DocumentIncarnation": 9, "FutureTopLevel": true, "Events": [
              {"EventId": "a1", "EventStatus": "Paused", "EventType": "LiveResize",
               "Resources": ["vm"], "NotBefore": "", "DurationInSeconds": "12",
               "Impact": {"Network": "degraded"}, "Tags": [1, 2]}]}
            """);
    ScheduledEvent e = d.events().get(0);
    assertThat(e.eventType()).isEqualTo("LiveResize");
    assertThat(e.eventStatus()).isEqualTo("Paused");
    assertThat(e.isScheduled()).isFalse();
    assertThat(e.isStarted()).isFalse();
    assertThat(e.durationInSeconds()).hasValue(12);
    assertThat(e.notBefore()).isNull();
    assertThat(e.raw().get("Impact").get("Network").asText()).isEqualTo("degraded");
    assertThat(e.raw().get("Tags")).hasSize(2);
    assertThat(d.raw().get("FutureTopLevel").asBoolean()).isTrue();
  }

  @Test
  void parsesNotBeforeDefensively() {
    assertThat(NotBefore.parse("Mon, 19 Sep 2016 18:29:47 GMT"))
        .hasValue(Instant.parse("2016-09-19T18:29:47Z"));
    // Wrong weekday: the date still counts.
    assertThat(NotBefore.parse("Tue, 19 Sep 2016 18:29:47 GMT"))
        .hasValue(Instant.parse("2016-09-19T18:29:47Z"));
    assertThat(NotBefore.parse("2026-01-05T10:00:00Z"))
        .hasValue(Instant.parse("2026-01-05T10:00:00Z"));
    assertThat(NotBefore.parse("2026-01-05T11:00:00+01:00"))
        .hasValue(Instant.parse("2026-01-05T10:00:00Z"));
    assertThat(NotBefore.parse("2026-01-05T10:00:00"))
        .hasValue(Instant.parse("2026-01-05T10:00:00Z"));
    assertThat(NotBefore.parse("")).isEmpty();
    assertThat(NotBefore.parse(null)).isEmpty();
    assertThat(NotBefore.parse("soon")).isEmpty();
  }

  @Test
  void anUnparsableNotBeforeKeepsTheEventAndItsRawValue() throws Exception {
    ScheduledEvent e =
        parse(
                "{\"DocumentIncarnation\":3,\"Events\":[{\"EventId\":\"x\",\"EventStatus\":\"Scheduled\","
                    + "\"EventType\":\"Reboot\",\"Resources\":[],\"NotBefore\":\"tomorrow-ish\"}]}")
            .events()
            .get(0);
    assertThat(e.notBefore()).isNull();
    assertThat(e.notBeforeRaw()).isEqualTo("tomorrow-ish");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "<html>captive portal</html>",
        "{\"DocumentIncarnation\": 7, \"Events\": [ {\"EventId\": ",
        "{}",
        "[]",
        "null",
        "{\"message\":\"hello\"}",
        "{\"DocumentIncarnation\": 1}",
        "{\"Events\": []}",
        "{\"DocumentIncarnation\": -1, \"Events\": []}",
        "{\"DocumentIncarnation\": 1.5, \"Events\": []}",
        "{\"DocumentIncarnation\": \"one\", \"Events\": []}",
        "{\"DocumentIncarnation\": 1, \"Events\": {}}",
        "{\"DocumentIncarnation\": 1, \"Events\": [42]}",
        "{\"DocumentIncarnation\": 1, \"Events\": [{\"EventStatus\": \"Scheduled\"}]}",
        "{\"DocumentIncarnation\": 1, \"Events\": [{\"EventId\": \"a\"}]}",
        "{\"DocumentIncarnation\": 1, \"Events\": [{\"EventId\": \"a\", \"EventStatus\": \"Scheduled\", \"Resources\": \"vm\"}]}",
        "{\"DocumentIncarnation\": 1, \"Events\": []} trailing",
        "{\"DocumentIncarnation\": 5, \"Events\": [{\"EventId\": \"a\", \"EventStatus\":"
            + " \"Scheduled\"}], \"Events\": []}",
        "{\"DocumentIncarnation\": 5, \"Events\": [{\"EventId\": \"a\", \"EventStatus\":"
            + " \"Scheduled\", \"EventStatus\": \"Completed\"}]}",
        // at any depth, in a field the parser does not read too: ambiguous all the same
        "{\"DocumentIncarnation\": 5, \"Events\": [{\"EventId\": \"a\", \"EventStatus\":"
            + " \"Scheduled\", \"X\": {\"y\": 1, \"y\": 2}}]}",
      })
  void neverReadsAMalformedAnswerAsNoEvents(String body) {
    assertThatThrownBy(() -> parse(body)).isInstanceOf(MalformedDocumentException.class);
  }

  @Test
  void acceptsANumericStringIncarnation() throws Exception {
    assertThat(parse("{\"DocumentIncarnation\": \"12\", \"Events\": []}").incarnation())
        .isEqualTo(12);
  }

  @Test
  void keepsTheFirstOfTwoEventsWithTheSameIdInAnyCase() throws Exception {
    ScheduledEventsDocument d =
        parse(
            "{\"DocumentIncarnation\":3,\"Events\":["
                + "{\"EventId\":\"ABC\",\"EventStatus\":\"Scheduled\",\"EventType\":\"Freeze\"},"
                + "{\"EventId\":\"abc\",\"EventStatus\":\"Started\",\"EventType\":\"Freeze\"}]}");
    assertThat(d.events()).singleElement().satisfies(e -> assertThat(e.isScheduled()).isTrue());
  }
}
