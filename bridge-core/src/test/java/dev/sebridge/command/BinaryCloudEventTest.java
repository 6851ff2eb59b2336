package dev.sebridge.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.spi.ReceivedCommand;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Binary-mode commands (Kafka {@code ce_} headers, AMQP {@code cloudEvents:} properties). */
class BinaryCloudEventTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void kafkaHeadersBecomeTheStructuredEvent() throws Exception {
    JsonNode ce =
        structured(
            Map.of(
                "ce_specversion", "1.0",
                "ce_id", "c-1",
                "ce_type", "dev.sebridge.command.approve.v1",
                "ce_subject", "E1",
                "content-type", "application/jose"),
            "a.b.c\\n");
    assertThat(ce.path("id").asText()).isEqualTo("c-1");
    assertThat(ce.path("type").asText()).isEqualTo("dev.sebridge.command.approve.v1");
    assertThat(ce.path("datacontenttype").asText()).isEqualTo("application/jose");
    assertThat(ce.path("data").asText()).isEqualTo("a.b.c\\n");
  }

  @Test
  void amqpPropertiesInEitherSpellingToo() throws Exception {
    for (String prefix : new String[] {"cloudevents:", "cloudevents_"}) {
      JsonNode ce =
          structured(Map.of(prefix + "specversion", "1.0", prefix + "id", "c-2"), "x.y.z");
      assertThat(ce.path("id").asText()).as(prefix).isEqualTo("c-2");
      assertThat(ce.path("data").asText()).isEqualTo("x.y.z");
    }
  }

  @Test
  void withoutSpecversionInTheHeadersTheValueIsTheEventAlready() {
    byte[] value = "{\"specversion\":\"1.0\"}".getBytes(StandardCharsets.UTF_8);
    ReceivedCommand c =
        new ReceivedCommand(value, "1", "t/0@0", Map.of("content-type", "application/json"));
    assertThat(BinaryCloudEvent.structured(c)).isSameAs(value);
  }

  @Test
  void aStructuredEventThatRepeatsAttributesInItsPropertiesStaysStructured() {
    byte[] value = "{\"specversion\":\"1.0\"}".getBytes(StandardCharsets.UTF_8);
    ReceivedCommand c =
        new ReceivedCommand(
            value,
            "1",
            "hub/0@0",
            Map.of(
                "content-type", "application/cloudevents+json; charset=utf-8",
                "cloudevents_specversion", "1.0",
                "cloudevents_type", "dev.sebridge.command.approve.v1"));
    assertThat(BinaryCloudEvent.structured(c)).isSameAs(value);
  }

  private static JsonNode structured(Map<String, String> headers, String value) throws Exception {
    return JSON.readTree(
        BinaryCloudEvent.structured(
            new ReceivedCommand(value.getBytes(StandardCharsets.UTF_8), "1", "t/0@0", headers)));
  }
}
