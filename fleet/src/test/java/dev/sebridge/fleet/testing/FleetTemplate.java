package dev.sebridge.fleet.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hubs {@code deploy/azure/fleet.bicep} and {@code fleet.json} make, read from the files an
 * operator deploys ({@code fleet-hubs.json} and the ARM template's parameter defaults), resolved
 * the way ARM does ({@code format(name, topicPrefix, applicationId, approvalsHubName)}), as the
 * topics Event Hubs' Kafka endpoint shows for them: a {@code Compact} hub is {@code
 * cleanup.policy=compact}, a {@code Delete} hub deletes after its retention in hours.
 */
public final class FleetTemplate {
  static final Path DIR = Path.of("..", "deploy", "azure");
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One hub as a topic.
   *
   * @param partitions its partitions; null: the events hub's
   * @param retention how long a deleting hub keeps records; null for a compacted one
   */
  public record Topic(String name, Integer partitions, boolean compact, Duration retention) {}

  private final JsonNode hubs;
  private final JsonNode parameters;

  private FleetTemplate(JsonNode hubs, JsonNode parameters) {
    this.hubs = hubs;
    this.parameters = parameters;
  }

  public static FleetTemplate read() {
    try {
      return new FleetTemplate(
          JSON.readTree(DIR.resolve("fleet-hubs.json").toFile()),
          JSON.readTree(DIR.resolve("fleet.json").toFile()).get("parameters"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A parameter's default value in the ARM template. */
  public JsonNode defaultOf(String parameter) {
    return parameters.get(parameter).get("defaultValue");
  }

  /** The hubs with the template's defaults, {@code partitions} as given. */
  public Map<String, Topic> topics(int partitions) {
    return topics(
        defaultOf("topicPrefix").asText(),
        defaultOf("applicationId").asText(),
        defaultOf("approvalsHubName").asText(),
        partitions);
  }

  /** The hubs as deployed with these parameters, by name, in the file's order. */
  public Map<String, Topic> topics(
      String topicPrefix, String applicationId, String approvalsHubName, int partitions) {
    Duration history = Duration.ofDays(defaultOf("historyRetentionInDays").asInt());
    Map<String, Topic> out = new LinkedHashMap<>();
    for (JsonNode h : hubs) {
      String name =
          MessageFormat.format(
              h.get("name").asText().replace("'", "''"),
              topicPrefix,
              applicationId,
              approvalsHubName);
      Integer n =
          switch (h.get("partitions").asText()) {
            case "events" -> null;
            case "one" -> 1;
            case "fleet" -> partitions;
            default -> throw new IllegalStateException("partitions: " + h);
          };
      boolean compact =
          switch (h.get("cleanup").asText()) {
            case "Compact" -> true;
            case "Delete" -> false;
            default -> throw new IllegalStateException("cleanup: " + h);
          };
      Duration retention =
          compact
              ? null
              : switch (h.get("keep").asText()) {
                case "history" -> history;
                case "week" -> Duration.ofDays(7);
                default -> throw new IllegalStateException("keep: " + h);
              };
      out.put(name, new Topic(name, n, compact, retention));
    }
    return out;
  }
}
