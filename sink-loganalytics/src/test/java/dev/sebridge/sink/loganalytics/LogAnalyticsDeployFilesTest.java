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
import org.junit.jupiter.api.Test;

/**
 * The deployed table, the DCR stream declaration and the sink's rows agree: the files under {@code
 * deploy/loganalytics/} are what {@link DeployDeclarations} generates from {@link RowMapping}.
 * Regenerate with {@code -Dsebridge.write-docs=true}.
 */
class LogAnalyticsDeployFilesTest {
  static final Path DIR = Path.of("..", "deploy", "loganalytics");
  static final ObjectMapper JSON = new ObjectMapper();

  static void check(String file, String generated) throws IOException {
    check(DIR, file, generated);
  }

  /** A generated file under deploy/ is current (or is written, with -Dsebridge.write-docs). */
  static void check(Path dir, String file, String generated) throws IOException {
    Path p = dir.resolve(file);
    if (Boolean.getBoolean("sebridge.write-docs")) {
      Files.createDirectories(dir);
      Files.writeString(p, generated, StandardCharsets.UTF_8);
    }
    assertThat(p).as("%s is stale: run with -Dsebridge.write-docs=true", p).exists();
    assertThat(Files.readString(p, StandardCharsets.UTF_8))
        .as("%s is stale: run with -Dsebridge.write-docs=true", p)
        .isEqualTo(generated);
  }

  @Test
  void columnsFileIsTheRowMapping() throws IOException {
    check("columns.json", DeployDeclarations.columnsJson());
  }

  @Test
  void armTemplateIsGeneratedFromTheRowMapping() throws IOException {
    check("logs-ingestion.json", DeployDeclarations.armTemplate());
  }

  @Test
  void tableAndStreamDeclareExactlyTheColumnsTheSinkWrites() throws IOException {
    JsonNode arm = JSON.readTree(DIR.resolve("logs-ingestion.json").toFile());
    JsonNode table = resource(arm, "Microsoft.OperationalInsights/workspaces/tables");
    JsonNode dcr = resource(arm, "Microsoft.Insights/dataCollectionRules");
    List<String> mapping =
        RowMapping.COLUMNS.stream().map(c -> c.name() + ":" + c.type().kusto()).toList();
    assertThat(columns(table.at("/properties/schema/columns"))).isEqualTo(mapping);
    assertThat(
            columns(
                dcr.at("/properties/streamDeclarations")
                    .get(DeployDeclarations.STREAM)
                    .get("columns")))
        .isEqualTo(mapping);
    assertThat(columns(JSON.readTree(DIR.resolve("columns.json").toFile()))).isEqualTo(mapping);
    // The rule writes its stream to the table unchanged.
    JsonNode flow = dcr.at("/properties/dataFlows/0");
    assertThat(flow.get("outputStream").asText()).isEqualTo(DeployDeclarations.STREAM);
    assertThat(flow.get("transformKql").asText()).isEqualTo("source");
    assertThat(table.at("/properties/schema/name").asText()).isEqualTo(DeployDeclarations.TABLE);
    // Log Analytics' own rules: TimeGenerated is required, names are at most 45 characters.
    assertThat(mapping).contains("TimeGenerated:datetime");
    assertThat(RowMapping.COLUMNS).allMatch(c -> c.name().length() <= 45);
    assertThat(DeployDeclarations.STREAM)
        .isEqualTo(LogAnalyticsSinkProvider.STREAM_KEY.defaultValue().orElseThrow());
  }

  static JsonNode resource(JsonNode arm, String type) {
    for (JsonNode r : arm.get("resources")) {
      if (r.get("type").asText().equals(type)) {
        return r;
      }
    }
    throw new AssertionError("no " + type + " in the template");
  }

  static List<String> columns(JsonNode cols) {
    List<String> out = new ArrayList<>();
    cols.forEach(c -> out.add(c.get("name").asText() + ":" + c.get("type").asText()));
    return out;
  }
}
