package dev.sebridge.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every golden example of every released version: valid ones stay valid against that version and
 * every later v1.x version (forever); invalid ones fail against their own version.
 */
class GoldenExamplesTest {

  /** All problems of an example against one schema version: schema, size, version agreement. */
  static List<String> problems(GoldenExamples.Example e, String schemaVersion) {
    List<String> problems = new ArrayList<>();
    byte[] bytes = e.bytes();
    JsonNode node = e.json();
    if (e.kind().equals("command-claims")) {
      return Schemas.validateDefinition(SchemaKind.COMMAND, schemaVersion, "claims", node);
    }
    SchemaKind kind = SchemaKind.ofCliName(e.kind()).orElseThrow();
    if (bytes.length > EnvelopeValidator.MAX_BYTES) {
      problems.add("larger than 64 KiB");
    }
    problems.addAll(Schemas.validate(kind, schemaVersion, node));
    if (kind != SchemaKind.COMMAND
        && !node.path("dataschema")
            .asText()
            .equals(kind.urn(node.path("data").path("schemaVersion").asText()))) {
      problems.add("dataschema and schemaVersion disagree");
    }
    return problems;
  }

  static List<String> versionsFrom(String kind, String version) {
    SchemaKind k =
        kind.equals("command-claims")
            ? SchemaKind.COMMAND
            : SchemaKind.ofCliName(kind).orElseThrow();
    List<String> released = Schemas.RELEASED.get(k);
    return released.subList(released.indexOf(version), released.size());
  }

  @TestFactory
  Stream<DynamicTest> everyExample() {
    return GoldenExamples.all().stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.toString(),
                    () -> {
                      if (e.valid()) {
                        for (String v : versionsFrom(e.kind(), e.version())) {
                          assertThat(problems(e, v)).as("%s against %s", e, v).isEmpty();
                        }
                      } else {
                        assertThat(problems(e, e.version())).as("%s must fail", e).isNotEmpty();
                      }
                    }));
  }

  @Test
  void thereAreValidAndInvalidExamplesOfEveryKind() {
    List<GoldenExamples.Example> all = GoldenExamples.all();
    for (String kind : List.of("envelope", "result", "heartbeat", "command", "command-claims")) {
      assertThat(all).filteredOn(e -> e.kind().equals(kind) && e.valid()).isNotEmpty();
      assertThat(all).filteredOn(e -> e.kind().equals(kind) && !e.valid()).isNotEmpty();
    }
    // Every transition has a valid example.
    assertThat(all)
        .filteredOn(e -> e.kind().equals("envelope") && e.valid())
        .extracting(e -> e.json().at("/data/transition").asText())
        .contains("Scheduled", "Started", "Updated", "Completed", "Canceled");
  }

  @Test
  void validExamplesCarryTheVersionOfTheirFolder() {
    for (GoldenExamples.Example e : GoldenExamples.all()) {
      if (!e.valid() || e.kind().startsWith("command")) {
        continue;
      }
      assertThat(e.json().at("/data/schemaVersion").asText())
          .as(e.toString())
          .isEqualTo(e.version());
    }
  }

  @Test
  void everySchemaIdIsItsDataschemaUrn() {
    Schemas.RELEASED.forEach(
        (kind, versions) ->
            versions.forEach(
                v -> assertThat(Schemas.tree(kind, v).get("$id").asText()).isEqualTo(kind.urn(v))));
  }

  @Test
  void theValidatorReportsEachRuleItChecks() {
    JsonNode ok =
        GoldenExamples.all().stream()
            .filter(e -> e.kind().equals("envelope") && e.valid())
            .findFirst()
            .orElseThrow()
            .json();
    assertThat(EnvelopeValidator.validate(ok)).isEmpty();
    assertThat(EnvelopeValidator.validate("{".getBytes()))
        .singleElement()
        .asString()
        .startsWith("not JSON");
    com.fasterxml.jackson.databind.node.ObjectNode foreign = ok.deepCopy();
    foreign.put("type", "com.example.other");
    assertThat(EnvelopeValidator.validate(foreign))
        .singleElement()
        .asString()
        .contains("not an sebridge type");
    com.fasterxml.jackson.databind.node.ObjectNode disagree = ok.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) disagree.get("data"))
        .put("schemaVersion", "1.4");
    assertThat(EnvelopeValidator.validate(disagree)).anyMatch(p -> p.contains("disagree"));
  }
}
