package dev.sebridge.sink.loganalytics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/azure/}: the generated transformation and ARM template are current, the
 * transformation writes exactly the table's columns from fields envelope v1 has, and the
 * hand-written Bicep declares what the ARM template does. To regenerate: {@code ./mvnw -pl
 * sink-loganalytics -am test -Dtest=AzureDeployFilesTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsebridge.write-docs=true}.
 */
class AzureDeployFilesTest {
  static final Path DIR = Path.of("..", "deploy", "azure");
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void transformAndTemplateAreGenerated() throws IOException {
    LogAnalyticsDeployFilesTest.check(DIR, "transform.kql", EventHubTransform.kql());
    LogAnalyticsDeployFilesTest.check(DIR, "sebridge.json", AzureDeployment.armTemplate());
  }

  @Test
  void theTransformWritesExactlyTheTablesColumnsInOrder() throws IOException {
    List<String> projected = new ArrayList<>();
    Matcher m =
        Pattern.compile("(?m)^\\s{4}([A-Za-z]+) = ")
            .matcher(Files.readString(DIR.resolve("transform.kql"), StandardCharsets.UTF_8));
    while (m.find()) {
      projected.add(m.group(1));
    }
    List<String> table = new ArrayList<>();
    JSON.readTree(DIR.resolve("../loganalytics/columns.json").toFile())
        .forEach(c -> table.add(c.get("name").asText()));
    assertThat(projected).isNotEmpty().containsExactlyElementsOf(table);
    assertThat(EventHubTransform.EXPRESSIONS.keySet())
        .containsExactlyElementsOf(
            RowMapping.COLUMNS.stream().map(RowMapping.Column::name).toList());
  }

  /** Every envelope field the transformation reads is present in some valid v1 document. */
  @Test
  void everyFieldTheTransformReadsExistsInEnvelopeV1() throws IOException {
    List<JsonNode> golden = new ArrayList<>();
    for (String kind : List.of("envelope", "result", "heartbeat")) {
      try (Stream<Path> files = Files.list(RowMappingTest.GOLDEN.resolve(kind).resolve("valid"))) {
        for (Path f : files.toList()) {
          golden.add(JSON.readTree(f.toFile()));
        }
      }
    }
    assertThat(golden).hasSizeGreaterThan(5);
    Set<String> paths = new TreeSet<>();
    Matcher m =
        Pattern.compile("\\be\\['([A-Za-z]+)'\\]((?:\\.[A-Za-z]+)*)")
            .matcher(EventHubTransform.kql());
    while (m.find()) {
      paths.add("." + m.group(1) + m.group(2));
    }
    assertThat(paths).contains(".time", ".data.event.EventType", ".data.vm.vmId");
    for (String path : paths) {
      String pointer = path.replace('.', '/');
      assertThat(golden.stream().anyMatch(g -> !g.at(pointer).isMissingNode()))
          .as("no valid v1 document has %s", path)
          .isTrue();
    }
  }

  /** type@apiVersion of each resource the Bicep file deploys (not the existing ones). */
  static Map<String, Integer> bicepResources(String bicep) {
    Map<String, Integer> out = new TreeMap<>();
    Matcher m = Pattern.compile("(?m)^resource \\w+ '([^']+)'( existing)?").matcher(bicep);
    while (m.find()) {
      if (m.group(2) == null) {
        out.merge(m.group(1), 1, Integer::sum);
      }
    }
    return out;
  }

  @Test
  void theBicepFileDeclaresWhatTheArmTemplateDoes() throws IOException {
    String bicep = Files.readString(DIR.resolve("sebridge.bicep"), StandardCharsets.UTF_8);
    JsonNode arm = JSON.readTree(DIR.resolve("sebridge.json").toFile());
    Map<String, Integer> armResources = new TreeMap<>();
    arm.get("resources")
        .forEach(
            r ->
                armResources.merge(
                    r.get("type").asText() + "@" + r.get("apiVersion").asText(), 1, Integer::sum));
    assertThat(bicepResources(bicep)).isEqualTo(armResources);

    Set<String> bicepParams = new TreeSet<>();
    Matcher p = Pattern.compile("(?m)^param (\\w+) (\\w+)").matcher(bicep);
    while (p.find()) {
      bicepParams.add(p.group(1) + ":" + p.group(2));
    }
    Set<String> armParams = new TreeSet<>();
    arm.get("parameters")
        .fields()
        .forEachRemaining(e -> armParams.add(e.getKey() + ":" + e.getValue().get("type").asText()));
    assertThat(bicepParams).isEqualTo(armParams);

    for (String role : List.of(AzureDeployment.DATA_SENDER, AzureDeployment.DATA_RECEIVER)) {
      assertThat(bicep).contains(role);
      assertThat(arm.toString()).contains(role);
    }
    // The generated parts are loaded, not copied.
    assertThat(bicep)
        .contains("loadTextContent('transform.kql')")
        .contains("loadJsonContent('../loganalytics/columns.json')");
    assertThat(bicep)
        .contains("'" + AzureDeployment.EVENTS_HUB + "'")
        .contains("'" + AzureDeployment.COMMANDS_HUB + "'")
        .contains("'" + AzureDeployment.INGESTION_STREAM + "'")
        .contains("'" + AzureDeployment.INGESTION_CONSUMER_GROUP + "'");
    Set<String> outputs = new TreeSet<>();
    Matcher o = Pattern.compile("(?m)^output (\\w+) ").matcher(bicep);
    while (o.find()) {
      outputs.add(o.group(1));
    }
    assertThat(outputs).isEqualTo(new TreeSet<>(iterate(arm.get("outputs").fieldNames())));
  }

  private static List<String> iterate(java.util.Iterator<String> it) {
    List<String> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
