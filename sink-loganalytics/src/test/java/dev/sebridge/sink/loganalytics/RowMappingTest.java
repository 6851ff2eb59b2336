package dev.sebridge.sink.loganalytics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.sink.loganalytics.testing.StreamDeclaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class RowMappingTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Path GOLDEN = Path.of("..", "schemas", "src", "test", "resources", "v1", "1.0");

  static List<Path> valid(String kind) throws IOException {
    try (Stream<Path> s = Files.list(GOLDEN.resolve(kind).resolve("valid"))) {
      return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
  }

  static JsonNode row(Path example) throws IOException {
    return RowMapping.row(Envelope.fromJson(Files.readAllBytes(example)));
  }

  @Test
  void everyGoldenTransitionBecomesARowOfTheDeclaredColumns() throws IOException {
    StreamDeclaration declared = StreamDeclaration.fromRepository();
    List<Path> examples = valid("envelope");
    assertThat(examples).hasSizeGreaterThan(5);
    for (Path p : examples) {
      JsonNode ce = JSON.readTree(p.toFile());
      JsonNode row = row(p);
      assertThat(declared.problems(row)).as(p.toString()).isEmpty();
      assertThat(row.get("Envelope")).as(p.toString()).isEqualTo(ce);
      assertThat(row.get("TimeGenerated").asText()).isEqualTo(ce.get("time").asText());
      assertThat(row.get("VmId").asText()).isEqualTo(ce.get("partitionkey").asText());
      assertThat(row.get("ScheduledEventId").asText()).isEqualTo(ce.get("subject").asText());
      assertThat(row.get("Transition").asText()).isEqualTo(ce.at("/data/transition").asText());
      assertThat(row.get("EventType").asText()).isEqualTo(ce.at("/data/event/EventType").asText());
      assertThat(row.get("EnvelopeId").asText()).isEqualTo(ce.get("id").asText());
      assertThat(row.get("CeType").asText()).isEqualTo(ce.get("type").asText());
      assertThat(row.get("SchemaVersion").asText()).isEqualTo("1.0");
      assertThat(row.get("DocumentIncarnation").asLong())
          .isEqualTo(ce.at("/data/documentIncarnation").asLong());
      assertThat(row.get("Resources")).isEqualTo(ce.at("/data/event/Resources"));
      if (ce.at("/data/notBeforeUtc").isTextual()) {
        assertThat(row.get("NotBefore").asText()).isEqualTo(ce.at("/data/notBeforeUtc").asText());
      } else {
        assertThat(row.has("NotBefore")).isFalse();
      }
    }
  }

  @Test
  void resultsAndHeartbeatsAreRowsToo() throws IOException {
    StreamDeclaration declared = StreamDeclaration.fromRepository();
    for (Path p : valid("result")) {
      JsonNode ce = JSON.readTree(p.toFile());
      JsonNode row = row(p);
      assertThat(declared.problems(row)).as(p.toString()).isEmpty();
      assertThat(row.get("CeType").asText()).isEqualTo(EnvelopeFactory.RESULT_TYPE);
      assertThat(row.get("ApprovalOutcome").asText()).isEqualTo(ce.at("/data/outcome").asText());
      assertThat(row.get("ApprovalReasonCode").asText())
          .isEqualTo(ce.at("/data/reasonCode").asText());
      assertThat(row.get("ScheduledEventId").asText()).isEqualTo(ce.get("subject").asText());
      assertThat(row.has("Transition")).isFalse();
    }
    for (Path p : valid("heartbeat")) {
      JsonNode row = row(p);
      assertThat(declared.problems(row)).as(p.toString()).isEmpty();
      assertThat(row.get("CeType").asText()).isEqualTo(EnvelopeFactory.HEARTBEAT_TYPE);
      assertThat(row.has("ScheduledEventId")).as("a heartbeat's subject is the vmId").isFalse();
      assertThat(row.get("VmId").asText()).isNotBlank();
    }
  }

  @Test
  void aWholeEnvelopeAlwaysFitsOneField() {
    assertThat(Envelope.MAX_BYTES).isLessThanOrEqualTo(RowMapping.MAX_FIELD_BYTES);
  }

  @Test
  void longValuesInOtherColumnsAreCutWithAMarkNotDropped() {
    JsonNode text = RowMapping.clip(TextNode.valueOf("\"quoted\" ".repeat(20_000)));
    assertThat(RowMapping.serialize(text).length).isLessThanOrEqualTo(RowMapping.MAX_FIELD_BYTES);
    assertThat(text.asText()).startsWith("\"quoted\" ").endsWith(RowMapping.TRUNCATION_MARK);

    ArrayNode names = JsonNodeFactory.instance.arrayNode();
    for (int i = 0; i < 10_000; i++) {
      names.add("vmss-instance-" + i);
    }
    JsonNode cut = RowMapping.clip(names);
    assertThat(RowMapping.serialize(cut).length).isLessThanOrEqualTo(RowMapping.MAX_FIELD_BYTES);
    assertThat(cut.get(0).asText()).isEqualTo("vmss-instance-0");
    assertThat(cut.get(cut.size() - 1).asText()).isEqualTo(RowMapping.TRUNCATION_MARK);
    assertThat(cut.size()).isGreaterThan(3000);

    JsonNode small = TextNode.valueOf("short");
    assertThat(RowMapping.clip(small)).isSameAs(small);
  }
}
