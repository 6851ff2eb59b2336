package dev.sebridge.sink.loganalytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Azure deployment validates the Event Hubs parameters against the chosen tier: the generated
 * ARM template ({@code deploy/azure/sebridge.json}) is evaluated as Resource Manager would with
 * each tier's limit and one more, and the hand-written Bicep declares the same limits and uses the
 * checked values.
 */
class EventHubTierLimitsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode template() throws IOException {
    return JSON.readTree(AzureDeployFilesTest.DIR.resolve("sebridge.json").toFile());
  }

  /** What the hubs get: partitions, retention hours and the commands hub's extra groups. */
  record Hubs(List<Integer> partitions, List<Integer> retentionHours, int commandGroups) {}

  static Hubs deploy(JsonNode template, Map<String, Object> parameters) {
    ArmExpressions arm = new ArmExpressions(template, parameters);
    List<Integer> partitions = new ArrayList<>();
    List<Integer> hours = new ArrayList<>();
    int groups = -1;
    for (JsonNode r : template.get("resources")) {
      String type = r.get("type").asText();
      if (type.equals("Microsoft.EventHub/namespaces/eventhubs")) {
        JsonNode props = arm.value(r.get("properties"));
        partitions.add(props.get("partitionCount").asInt());
        hours.add(props.at("/retentionDescription/retentionTimeInHours").asInt(-1));
      } else if (type.equals("Microsoft.EventHub/namespaces/eventhubs/consumergroups")
          && r.has("copy")) {
        groups = arm.value(r.at("/copy/count")).asInt();
      }
    }
    return new Hubs(partitions, hours, groups);
  }

  /**
   * Each parameter's largest value on each tier, and how its refusal reads. {@code $Default} counts
   * toward the consumer groups, so the commands hub takes one fewer besides it.
   */
  static Stream<Arguments> limits() {
    return EventHubTiers.TIERS.stream()
        .flatMap(
            t ->
                Stream.of(
                    Arguments.of(t.name(), "partitionCount", t.partitionCount(), "is more than"),
                    Arguments.of(t.name(), "retentionInDays", t.retentionInDays(), "is more than"),
                    Arguments.of(
                        t.name(),
                        "commandsConsumerGroups",
                        t.consumerGroups() - 1,
                        "and $Default are more than")));
  }

  @ParameterizedTest(name = "{0} {1} <= {2}")
  @MethodSource("limits")
  void eachParameterIsCheckedAgainstTheChosenTier(
      String tier, String parameter, int limit, String tooMany) throws IOException {
    JsonNode template = template();
    Map<String, Object> params = new HashMap<>(Map.of("namespaceSku", tier, parameter, limit));
    Hubs atLimit = deploy(template, params);
    assertThat(atLimit.partitions()).hasSize(2);
    switch (parameter) {
      case "partitionCount" -> assertThat(atLimit.partitions()).containsOnly(limit);
      case "retentionInDays" -> assertThat(atLimit.retentionHours()).containsOnly(limit * 24);
      default -> assertThat(atLimit.commandGroups()).isEqualTo(limit);
    }
    // One more: for the largest tier the parameter's own bound refuses it; for a smaller tier the
    // bound lets it through and the tier check refuses it.
    int maxValue = template.at("/parameters/" + parameter + "/maxValue").asInt();
    assertThat(maxValue).isGreaterThanOrEqualTo(limit);
    if (limit == maxValue) {
      return;
    }
    params.put(parameter, limit + 1);
    int quota = parameter.equals("commandsConsumerGroups") ? limit + 1 : limit;
    assertThatThrownBy(() -> deploy(template, params))
        .isInstanceOf(ArmExpressions.DeploymentFailed.class)
        .hasMessage(
            "%s %d %s the %s tier allows per event hub (%d).",
            parameter, limit + 1, tooMany, tier, quota);
  }

  @Test
  void theDefaultsDeployOnStandard() throws IOException {
    Hubs hubs = deploy(template(), Map.of());
    assertThat(hubs.partitions()).containsExactly(32, 32);
    assertThat(hubs.retentionHours()).containsExactly(7 * 24, 7 * 24);
    assertThat(hubs.commandGroups()).isZero(); // 1 group: $Default only
  }

  /** The limits agree with docs/eventhubs.md's fleet-limits table (Microsoft's quotas page). */
  @Test
  void theLimitsAreThePublishedQuotasTheDocsQuote() throws IOException {
    String docs =
        Files.readString(Path.of("..", "docs", "eventhubs.md"), StandardCharsets.UTF_8)
            .replace(",", "");
    for (EventHubTiers.Tier t : EventHubTiers.TIERS) {
      Matcher row =
          Pattern.compile("(?m)^\\| " + t.name() + " \\| (\\d+) \\| (\\d+) \\|").matcher(docs);
      assertThat(row.find()).as("docs/eventhubs.md row for %s", t.name()).isTrue();
      assertThat(Integer.parseInt(row.group(1))).isEqualTo(t.partitionCount());
      assertThat(Integer.parseInt(row.group(2))).isEqualTo(t.consumerGroups());
    }
    // Maximum retention period: Standard 7 days, Premium 90 days (same quotas page).
    assertThat(EventHubTiers.TIERS)
        .extracting(EventHubTiers.Tier::retentionInDays)
        .containsExactly(7, 90);
  }

  @Test
  void theBicepFileChecksTheSameLimitsAndUsesTheCheckedValues() throws IOException {
    String bicep =
        Files.readString(
            AzureDeployFilesTest.DIR.resolve("sebridge.bicep"), StandardCharsets.UTF_8);
    Map<String, Map<String, Integer>> bicepLimits = new TreeMap<>();
    Matcher m =
        Pattern.compile(
                "(?m)^  (\\w+): \\{ partitionCount: (\\d+), retentionInDays: (\\d+),"
                    + " consumerGroups: (\\d+) \\}$")
            .matcher(bicep);
    while (m.find()) {
      bicepLimits.put(
          m.group(1),
          Map.of(
              "partitionCount", Integer.parseInt(m.group(2)),
              "retentionInDays", Integer.parseInt(m.group(3)),
              "consumerGroups", Integer.parseInt(m.group(4))));
    }
    Map<String, Map<String, Integer>> armLimits = new TreeMap<>();
    template()
        .at("/variables/" + EventHubTiers.LIMITS)
        .fields()
        .forEachRemaining(
            e ->
                armLimits.put(
                    e.getKey(),
                    JSON.convertValue(e.getValue(), new TypeReference<Map<String, Integer>>() {})));
    assertThat(bicepLimits).hasSize(EventHubTiers.TIERS.size()).isEqualTo(armLimits);

    for (String[] check :
        List.of(
            new String[] {EventHubTiers.PARTITIONS, "partitionCount", "<=", "is more than"},
            new String[] {EventHubTiers.RETENTION_HOURS, "retentionInDays", "<=", "is more than"},
            new String[] {
              EventHubTiers.CONSUMER_GROUPS,
              "commandsConsumerGroups",
              "<",
              "and \\$Default are more than"
            })) {
      assertThat(bicep)
          .containsPattern(
              "(?m)^var "
                  + check[0]
                  + " = "
                  + check[1]
                  + " "
                  + check[2]
                  + " tierLimits\\[namespaceSku\\]\\.\\w+ \\? .+ : fail\\('"
                  + check[1]
                  + " \\$\\{"
                  + check[1]
                  + "\\} "
                  + check[3]
                  + " the \\$\\{namespaceSku\\} tier allows");
    }
    assertThat(bicep)
        .doesNotContainPattern("(?m)^\\s+messageRetentionInDays:")
        .containsPattern("(?m)^    partitionCount: " + EventHubTiers.PARTITIONS + "$")
        .containsPattern("(?m)^      retentionTimeInHours: " + EventHubTiers.RETENTION_HOURS + "$")
        .contains("range(0, " + EventHubTiers.CONSUMER_GROUPS + " > 1 ? ")
        .doesNotContain("    partitionCount: partitionCount");
  }
}
