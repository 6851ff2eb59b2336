package dev.sebridge.validators;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.sink.loganalytics.EventHubTransform;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every KQL sebridge publishes, parsed and analysed by Microsoft's Kusto.Language (npm
 * {@code @kusto/language-service-next}) with its table declared: the queries under deploy/kql
 * against {@code VmScheduledEvents_CL}, and the data collection rule transformation against {@code
 * source}, whose functions must also be on the list Azure Monitor transformations support
 * (validators/dcr-transform-functions.txt, from Microsoft's page).
 */
class KqlValidatorTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theTransformationParsesAndCallsOnlySupportedFunctions(@TempDir Path tmp) throws Exception {
    Path source = tmp.resolve("source.json");
    Files.writeString(source, "[{\"name\": \"RawData\", \"type\": \"string\"}]");
    Path generated = tmp.resolve("generated-transform.kql");
    Files.writeString(generated, EventHubTransform.kql(), StandardCharsets.UTF_8);
    Path inArm = tmp.resolve("sebridge.json-transform.kql");
    Files.writeString(inArm, transformInArmTemplate(), StandardCharsets.UTF_8);
    NodeTools.Result r =
        checkTransforms(
            source, NodeTools.REPO.resolve("deploy/azure/transform.kql"), generated, inArm);
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("calls ").contains("parse_json").contains("iif");
  }

  @Test
  void theQueriesForTheTableParse() throws Exception {
    List<String> args = new ArrayList<>();
    args.add("--table");
    args.add("VmScheduledEvents_CL=" + NodeTools.REPO.resolve("deploy/loganalytics/columns.json"));
    try (Stream<Path> files = Files.list(NodeTools.REPO.resolve("deploy/kql"))) {
      files
          .filter(f -> f.toString().endsWith(".kql"))
          .sorted()
          .forEach(f -> args.add(f.toString()));
    }
    assertThat(args).hasSizeGreaterThan(4);
    NodeTools.Result r = NodeTools.node("kql-check.js", args);
    assertThat(r.exit()).as(r.output()).isZero();
  }

  @Test
  void theValidatorCatchesWhatAzureRefuses(@TempDir Path tmp) throws Exception {
    Path source = tmp.resolve("source.json");
    Files.writeString(source, "[{\"name\": \"RawData\", \"type\": \"string\"}]");
    Path bad = tmp.resolve("bad.kql");
    Files.writeString(
        bad,
        "source\n| extend e = parse_json(RawData)\n| project TimeGenerated = todatetime(e.time),"
            + " VmId = coalesce(tostring(e.data.vm.vmId), '')\n");
    NodeTools.Result r = checkTransforms(source, bad);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("KS006").contains("function coalesce is not allowed");
  }

  private static String transformInArmTemplate() throws Exception {
    JsonNode arm = JSON.readTree(NodeTools.REPO.resolve("deploy/azure/sebridge.json").toFile());
    List<String> found = new ArrayList<>();
    arm.findValues("transformKql").forEach(n -> found.add(n.asText()));
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  /**
   * kql-check.js on DCR transformations: {@code source} declared from {@code sourceColumns}, only
   * the functions Azure Monitor transformations allow.
   */
  private static NodeTools.Result checkTransforms(Path sourceColumns, Path... files)
      throws Exception {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--table",
                "source=" + sourceColumns,
                "--allow",
                NodeTools.MODULE.resolve("dcr-transform-functions.txt").toString()));
    for (Path f : files) {
      args.add(f.toString());
    }
    return NodeTools.node("kql-check.js", args);
  }
}
