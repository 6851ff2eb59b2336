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
    LogAnalyticsDeployFilesTest.check(DIR, "fleet-hubs.json", FleetHubs.json());
    LogAnalyticsDeployFilesTest.check(DIR, "fleet.json", FleetDeployment.armTemplate());
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

  /** The same resources (type and API version, how many), parameters (name and type), outputs. */
  static void declareTheSame(String bicepFile, String armFile) throws IOException {
    String bicep = Files.readString(DIR.resolve(bicepFile), StandardCharsets.UTF_8);
    JsonNode arm = JSON.readTree(DIR.resolve(armFile).toFile());
    Map<String, Integer> armResources = new TreeMap<>();
    arm.get("resources")
        .forEach(
            r ->
                armResources.merge(
                    r.get("type").asText() + "@" + r.get("apiVersion").asText(), 1, Integer::sum));
    assertThat(bicepResources(bicep)).as(bicepFile).isEqualTo(armResources);

    // Each parameter: name, type, default, bounds (the decorators above it).
    Set<String> bicepParams = new TreeSet<>();
    Matcher p =
        Pattern.compile(
                "(?m)((?:^@(?:minValue|maxValue)\\(\\d+\\)\\n)*)^param (\\w+) (\\w+)(?: = (.+))?$")
            .matcher(bicep.replaceAll("(?m)^@description\\(.*\\)\\n", ""));
    while (p.find()) {
      bicepParams.add(
          p.group(2)
              + ":"
              + p.group(3)
              + "="
              + (p.group(4) == null ? "" : p.group(4).replaceAll("^'(.*)'$", "$1"))
              + p.group(1).replaceAll("@(minValue|maxValue)\\((\\d+)\\)\\n", " $1=$2"));
    }
    Set<String> armParams = new TreeSet<>();
    arm.get("parameters")
        .fields()
        .forEachRemaining(
            e -> {
              JsonNode v = e.getValue();
              String def = v.has("defaultValue") ? v.get("defaultValue").asText() : "";
              armParams.add(
                  e.getKey()
                      + ":"
                      + v.get("type").asText()
                      + "="
                      + def.replaceAll("^\\[(.*)\\]$", "$1")
                      + (v.has("minValue") ? " minValue=" + v.get("minValue").asInt() : "")
                      + (v.has("maxValue") ? " maxValue=" + v.get("maxValue").asInt() : ""));
            });
    assertThat(bicepParams).as(bicepFile).isEqualTo(armParams);

    Set<String> outputs = new TreeSet<>();
    Matcher o = Pattern.compile("(?m)^output (\\w+) ").matcher(bicep);
    while (o.find()) {
      outputs.add(o.group(1));
    }
    assertThat(outputs)
        .as(bicepFile)
        .isEqualTo(new TreeSet<>(iterate(arm.get("outputs").fieldNames())));
  }

  @Test
  void theBicepFileDeclaresWhatTheArmTemplateDoes() throws IOException {
    declareTheSame("sebridge.bicep", "sebridge.json");
    String bicep = Files.readString(DIR.resolve("sebridge.bicep"), StandardCharsets.UTF_8);
    JsonNode arm = JSON.readTree(DIR.resolve("sebridge.json").toFile());
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
  }

  /**
   * The fleet's template: the same in both files, the hubs loaded from fleet-hubs.json in both, the
   * namespace's identity (which Capture writes with) made by sebridge.bicep, and what an operator
   * relies on spelled the same in both.
   */
  @Test
  void theFleetBicepFileDeclaresWhatItsArmTemplateDoes() throws IOException {
    declareTheSame("fleet.bicep", "fleet.json");
    String bicep = Files.readString(DIR.resolve("fleet.bicep"), StandardCharsets.UTF_8);
    String arm = Files.readString(DIR.resolve("fleet.json"), StandardCharsets.UTF_8);
    assertThat(bicep).contains("loadJsonContent('fleet-hubs.json')");
    assertThat(JSON.readTree(arm).get("variables").get("fleetHubs"))
        .isEqualTo(JSON.readTree(DIR.resolve("fleet-hubs.json").toFile()));
    for (String both :
        List.of(
            AzureDeployment.DATA_SENDER,
            AzureDeployment.DATA_RECEIVER,
            FleetHubs.STORAGE_BLOB_DATA_CONTRIBUTOR,
            CentralDelivery.TOPIC_TYPE,
            "'" + FleetHubs.AUDIT_CONTAINER + "'",
            "CloudEventSchemaV1_0",
            "EventHubArchive.AzureBlockBlob",
            "{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}",
            "-agentless-events",
            "'global'")) {
      assertThat(bicep).as("fleet.bicep").contains(both);
      assertThat(arm.replace('"', '\'')).as("fleet.json").contains(both);
    }
    assertThat(bicep)
        .contains("tombstoneRetentionTimeInHours: " + FleetHubs.TOMBSTONE_HOURS)
        .contains(": " + FleetHubs.WEEK_HOURS);
    // Least privilege: the fleet's identity sends to hubs only (never namespace-wide, where it
    // could write as an agent or as Azure), and manages nothing.
    JsonNode fleetArm = JSON.readTree(arm);
    List<String> sendScopes = new ArrayList<>();
    for (JsonNode r : fleetArm.get("resources")) {
      if (r.get("type").asText().equals("Microsoft.Authorization/roleAssignments")) {
        String role = r.at("/properties/roleDefinitionId").asText();
        assertThat(role)
            .containsAnyOf(
                AzureDeployment.DATA_SENDER,
                AzureDeployment.DATA_RECEIVER,
                FleetHubs.STORAGE_BLOB_DATA_CONTRIBUTOR);
        if (role.contains(AzureDeployment.DATA_SENDER)) {
          sendScopes.add(r.get("scope").asText());
        }
      }
    }
    assertThat(sendScopes).hasSize(3).allMatch(scope -> scope.contains("/eventhubs/"));
    assertThat(bicep)
        .contains("scope: hubs[i]")
        .doesNotContain("guid(namespace.id, fleet.id, dataSender)");
    // Capture writes with the namespace's own identity, which the agents' template turns on.
    assertThat(Files.readString(DIR.resolve("sebridge.bicep"), StandardCharsets.UTF_8))
        .containsPattern("(?s)resource namespace .*identity: \\{\\s*type: 'SystemAssigned'");
    JsonNode namespace =
        JSON.readTree(DIR.resolve("sebridge.json").toFile()).get("resources").get(0);
    assertThat(namespace.at("/identity/type").asText()).isEqualTo("SystemAssigned");
  }

  private static List<String> iterate(java.util.Iterator<String> it) {
    List<String> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
