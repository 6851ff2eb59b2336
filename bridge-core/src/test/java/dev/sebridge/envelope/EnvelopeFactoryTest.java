package dev.sebridge.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.track.Transition;
import dev.sebridge.track.TransitionType;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EnvelopeFactoryTest {
  static final Instant T = Instant.parse("2026-11-22T10:15:30.123Z");
  static final VmIdentity VM =
      new VmIdentity(
          "02aab8a4-74ef-476e-8182-f6d2ba4166a6",
          "WestNO_0",
          "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/WestNO_0",
          "s",
          "rg",
          "norwaywest",
          "1",
          null,
          "Linux");
  final EnvelopeFactory factory =
      new EnvelopeFactory(new AgentInfo("1.2.3", "host-1"), Clock.fixed(T, ZoneOffset.UTC));

  static ScheduledEvent event(String description) throws Exception {
    String json =
        "{\"EventId\":\"C7061BAC-AFDC-4513-B24B-AA5F13A16123\",\"EventStatus\":\"Scheduled\","
            + "\"EventType\":\"Freeze\",\"ResourceType\":\"VirtualMachine\",\"Resources\":[\"WestNO_0\"],"
            + "\"NotBefore\":\"Mon, 11 Apr 2022 22:26:58 GMT\",\"Description\":\""
            + description
            + "\",\"EventSource\":\"Platform\",\"DurationInSeconds\":5,\"NewField\":{\"x\":1}}";
    return DocumentParser.event(
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void buildsEnvelopeV1() throws Exception {
    Transition t = new Transition(TransitionType.SCHEDULED, event("d"), null, 2, T, false);
    Envelope env = factory.scheduledEvent(t, VM);
    JsonNode j = env.json();
    assertThat(j.get("specversion").asText()).isEqualTo("1.0");
    assertThat(j.get("type").asText()).isEqualTo("dev.sebridge.scheduledevent.scheduled.v1");
    assertThat(j.get("source").asText()).isEqualTo(VM.resourceId());
    assertThat(j.get("subject").asText()).isEqualTo("C7061BAC-AFDC-4513-B24B-AA5F13A16123");
    assertThat(j.get("time").asText()).isEqualTo("2026-11-22T10:15:30.123Z");
    assertThat(j.get("datacontenttype").asText()).isEqualTo("application/json");
    assertThat(j.get("dataschema").asText()).isEqualTo("urn:sebridge:schema:scheduledevent:1.0");
    assertThat(j.get("partitionkey").asText()).isEqualTo(VM.vmId());
    JsonNode d = j.get("data");
    assertThat(d.get("schemaVersion").asText()).isEqualTo("1.0");
    assertThat(d.get("transition").asText()).isEqualTo("Scheduled");
    assertThat(d.get("documentIncarnation").asLong()).isEqualTo(2);
    assertThat(d.get("affectsThisVm").asBoolean()).isTrue();
    assertThat(d.get("inferred").asBoolean()).isFalse();
    assertThat(d.get("notBeforeUtc").asText()).isEqualTo("2022-04-11T22:26:58.000Z");
    assertThat(d.get("event").get("NewField").get("x").asInt()).isEqualTo(1);
    assertThat(d.get("event").get("NotBefore").asText()).isEqualTo("Mon, 11 Apr 2022 22:26:58 GMT");
    assertThat(d.get("vm").get("location").asText()).isEqualTo("norwaywest");
    assertThat(d.get("vm").has("vmScaleSetName")).isFalse();
    assertThat(d.get("agent").get("version").asText()).isEqualTo("1.2.3");
    assertThat(env.partitionKey()).isEqualTo(VM.vmId());
    assertThat(Envelope.fromJson(env.body())).isEqualTo(env);
  }

  @Test
  void idsAreDeterministicUuidV5() throws Exception {
    Transition t = new Transition(TransitionType.STARTED, event("d"), "Scheduled", 3, T, false);
    Transition sameLater =
        new Transition(
            TransitionType.STARTED, event("d"), "Scheduled", 3, T.plusSeconds(99), false);
    UUID id = UUID.fromString(factory.scheduledEvent(t, VM).id());
    assertThat(id.version()).isEqualTo(5);
    assertThat(factory.scheduledEvent(sameLater, VM).id()).isEqualTo(id.toString());
    Transition otherInc =
        new Transition(TransitionType.STARTED, event("d"), "Scheduled", 4, T, false);
    assertThat(factory.scheduledEvent(otherInc, VM).id()).isNotEqualTo(id.toString());
    Transition otherType =
        new Transition(TransitionType.UPDATED, event("d"), "Scheduled", 3, T, false);
    assertThat(factory.scheduledEvent(otherType, VM).id()).isNotEqualTo(id.toString());
    // Known answer: guards against an accidental change of the id scheme (that would break dedup).
    assertThat(
            NameBasedUuid.v5(UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), "python.org"))
        .isEqualTo(UUID.fromString("886313e1-3b8a-5372-9b90-0c9aee199e5d"));
  }

  @Test
  void sourceFallsBackToAUrnWithoutResourceId() throws Exception {
    Transition t = new Transition(TransitionType.SCHEDULED, event("d"), null, 2, T, false);
    Envelope env = factory.scheduledEvent(t, VmIdentity.of("vm-1", "WestNO_9"));
    assertThat(env.source()).isEqualTo("urn:sebridge:vm:vm-1");
    assertThat(env.json().at("/data/affectsThisVm").asBoolean()).isFalse();
  }

  @Test
  void truncatesAnOversizedDescriptionAndKeepsTheEnvelope() throws Exception {
    String huge = "x".repeat(200_000);
    Transition t = new Transition(TransitionType.SCHEDULED, event(huge), null, 2, T, true);
    Envelope env = factory.scheduledEvent(t, VM);
    assertThat(env.size()).isLessThanOrEqualTo(Envelope.MAX_BYTES);
    assertThat(env.size()).isGreaterThan(Envelope.MAX_BYTES - 1024);
    JsonNode d = env.json().get("data");
    assertThat(d.get("event").get("Description").asText()).endsWith("…[truncated]");
    assertThat(d.get("truncated").get(0).asText()).isEqualTo("event.Description");
    assertThat(d.get("inferred").asBoolean()).isTrue();
    assertThat(d.get("event").get("EventId").asText())
        .isEqualTo("C7061BAC-AFDC-4513-B24B-AA5F13A16123");
  }

  @Test
  void aHugeResourcesListIsShortenedAndStaysAList() throws Exception {
    ScheduledEvent base = event("d");
    com.fasterxml.jackson.databind.node.ObjectNode raw = base.raw().deepCopy();
    com.fasterxml.jackson.databind.node.ArrayNode res = raw.putArray("Resources");
    res.add("WestNO_0");
    for (int i = 0; i < 5000; i++) {
      res.add("scale-set-instance-with-a-long-name_" + i);
    }
    raw.set(
        "Huge",
        new com.fasterxml.jackson.databind.ObjectMapper()
            .valueToTree(java.util.Map.of("k", "v".repeat(100))));
    ScheduledEvent e = DocumentParser.event(raw);
    Envelope env =
        factory.scheduledEvent(new Transition(TransitionType.SCHEDULED, e, null, 2, T, false), VM);
    assertThat(env.size()).isLessThanOrEqualTo(Envelope.MAX_BYTES);
    JsonNode d = env.json().get("data");
    assertThat(d.at("/event/Resources").isArray()).isTrue();
    assertThat(d.at("/event/Resources/0").asText()).isEqualTo("WestNO_0");
    assertThat(d.get("affectsThisVm").asBoolean()).isTrue(); // computed before cutting
    assertThat(d.get("truncated").toString()).contains("event.Resources");
    assertThat(dev.sebridge.schemas.EnvelopeValidator.validate(env.body())).isEmpty();
  }

  @Test
  void multiByteDescriptionsStillFit() throws Exception {
    Transition t =
        new Transition(TransitionType.SCHEDULED, event("é€😀".repeat(30_000)), null, 2, T, false);
    assertThat(factory.scheduledEvent(t, VM).size()).isLessThanOrEqualTo(Envelope.MAX_BYTES);
  }

  @Test
  void timesHaveMillisecondPrecision() {
    assertThat(EnvelopeFactory.formatTime(Instant.parse("2026-01-01T00:00:00Z")))
        .isEqualTo("2026-01-01T00:00:00.000Z");
    assertThat(EnvelopeFactory.formatTime(Instant.parse("2026-01-01T00:00:00.123456Z")))
        .isEqualTo("2026-01-01T00:00:00.123Z");
  }
}
