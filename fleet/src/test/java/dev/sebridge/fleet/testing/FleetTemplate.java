package dev.sebridge.fleet.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.sink.loganalytics.ArmExpressions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hubs {@code deploy/azure/fleet.json} deploys (the copy loop over its {@code fleetHubs}),
 * evaluated as Resource Manager would with the given parameters ({@link ArmExpressions}), with the
 * agents' events hub as deployed before it, and read as the topics Event Hubs' Kafka endpoint shows
 * for them: a {@code Compact} hub is {@code cleanup.policy=compact}, a {@code Delete} hub deletes
 * after its retention in hours.
 */
public final class FleetTemplate {
  static final Path DIR = Path.of("..", "deploy", "azure");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NAMESPACE = "ns";

  /**
   * One hub as a topic.
   *
   * @param retention how long a deleting hub keeps records; null for a compacted one
   */
  public record Topic(String name, int partitions, boolean compact, Duration retention) {}

  private final JsonNode template;

  private FleetTemplate(JsonNode template) {
    this.template = template;
  }

  public static FleetTemplate read() {
    try {
      return new FleetTemplate(JSON.readTree(DIR.resolve("fleet.json").toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A parameter's default value in the ARM template. */
  public JsonNode defaultOf(String parameter) {
    return template.get("parameters").get(parameter).get("defaultValue");
  }

  /**
   * The hubs as deployed with these parameters (the others their defaults) beside an events hub of
   * {@code eventsPartitions}, by name, in the template's order.
   */
  public Map<String, Topic> topics(
      String topicPrefix,
      String applicationId,
      String approvalsHubName,
      int partitions,
      int eventsPartitions) {
    ArmExpressions arm =
        new ArmExpressions(
                template,
                Map.of(
                    "namespaceName", NAMESPACE,
                    "storageAccountName", "audit",
                    "topicPrefix", topicPrefix,
                    "applicationId", applicationId,
                    "approvalsHubName", approvalsHubName,
                    "partitions", partitions))
            .deployed(
                Map.of(
                    "Microsoft.EventHub/namespaces/eventhubs/"
                        + NAMESPACE
                        + "/"
                        + defaultOf("eventsHubName").asText(),
                    JSON.createObjectNode().put("partitionCount", eventsPartitions)));
    JsonNode loop = null;
    for (JsonNode r : template.get("resources")) {
      if (r.path("copy").path("name").asText().equals("fleetHubs")) {
        loop = r;
      }
    }
    if (loop == null) {
      throw new IllegalStateException("fleet.json has no copy loop fleetHubs");
    }
    Map<String, Topic> out = new LinkedHashMap<>();
    int count = arm.value(loop.at("/copy/count")).asInt();
    for (int i = 0; i < count; i++) {
      ArmExpressions hub = arm.at(i);
      String name = hub.value(loop.get("name")).asText();
      if (!name.startsWith(NAMESPACE + "/")) {
        throw new IllegalStateException("a hub outside the namespace: " + name);
      }
      name = name.substring(NAMESPACE.length() + 1);
      JsonNode props = hub.value(loop.get("properties"));
      String cleanup = props.at("/retentionDescription/cleanupPolicy").asText();
      boolean compact =
          switch (cleanup) {
            case "Compact" -> true;
            case "Delete" -> false;
            default -> throw new IllegalStateException(name + ": cleanupPolicy " + cleanup);
          };
      out.put(
          name,
          new Topic(
              name,
              props.get("partitionCount").asInt(),
              compact,
              compact
                  ? null
                  : Duration.ofHours(
                      props.at("/retentionDescription/retentionTimeInHours").asLong())));
    }
    return out;
  }
}
