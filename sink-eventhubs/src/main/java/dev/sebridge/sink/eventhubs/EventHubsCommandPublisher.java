package dev.sebridge.sink.eventhubs;

import com.azure.core.credential.TokenCredential;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventDataBatch;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubProducerClient;
import com.azure.messaging.eventhubs.models.CreateBatchOptions;
import dev.sebridge.command.CommandPartitioning;
import java.util.ArrayList;
import java.util.List;

/**
 * Publishes a signed command to the partition of the commands hub its target agent reads ({@code
 * sebridge approve --eventhubs}).
 */
public final class EventHubsCommandPublisher {
  private EventHubsCommandPublisher() {}

  /** Where a command went. */
  public record Published(String hub, String partitionId) {}

  /** With a connection string (EntityPath, or {@code hub}). */
  public static Published publish(
      String connectionString, String hub, String vmId, byte[] command) {
    EventHubClientBuilder b = new EventHubClientBuilder().retryOptions(EventHubsEndpoint.retries());
    String target = EventHubsEndpoint.entityPath(connectionString).orElse(hub);
    b =
        EventHubsEndpoint.entityPath(connectionString).isPresent()
            ? b.connectionString(connectionString)
            : b.connectionString(connectionString, hub);
    return publish(b, target, vmId, command);
  }

  /**
   * With the operator's Microsoft Entra ID credential (DefaultAzureCredential: environment, Azure
   * CLI login...). Callers name no Azure type, so the agent's command line does not load the
   * (signed, and costly to verify) Azure jars for {@code sebridge run}.
   */
  public static Published publishAsOperator(
      String namespace, String hub, String vmId, byte[] command) {
    return publish(
        namespace,
        hub,
        new com.azure.identity.DefaultAzureCredentialBuilder().build(),
        vmId,
        command);
  }

  /** With a Microsoft Entra ID credential. */
  public static Published publish(
      String namespace, String hub, TokenCredential credential, String vmId, byte[] command) {
    return publish(
        new EventHubClientBuilder()
            .retryOptions(EventHubsEndpoint.retries())
            .credential(namespace, hub, credential),
        hub,
        vmId,
        command);
  }

  private static Published publish(
      EventHubClientBuilder builder, String hub, String vmId, byte[] command) {
    try (EventHubProducerClient producer = builder.buildProducerClient()) {
      List<String> ids = new ArrayList<>();
      producer.getPartitionIds().forEach(ids::add);
      String partition = ids.get(CommandPartitioning.partitionFor(vmId, ids.size()));
      EventData d = new EventData(command);
      d.setContentType("application/cloudevents+json; charset=utf-8");
      d.getProperties().put("cloudEvents_specversion", "1.0");
      d.getProperties().put("cloudEvents_type", "dev.sebridge.command.approve.v1");
      d.getProperties().put(EventHubsCommandSource.TARGET_PROPERTY, vmId);
      EventDataBatch batch =
          producer.createBatch(new CreateBatchOptions().setPartitionId(partition));
      if (!batch.tryAdd(d)) {
        throw new IllegalArgumentException("the command does not fit one event");
      }
      producer.send(batch);
      return new Published(hub, partition);
    }
  }
}
