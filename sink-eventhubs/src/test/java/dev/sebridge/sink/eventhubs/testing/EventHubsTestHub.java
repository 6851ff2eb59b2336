package dev.sebridge.sink.eventhubs.testing;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubConsumerClient;
import com.azure.messaging.eventhubs.models.EventPosition;
import com.azure.messaging.eventhubs.models.PartitionEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.azure.AzuriteContainer;
import org.testcontainers.azure.EventHubsEmulatorContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.images.builder.Transferable;

/**
 * An Event Hubs namespace for tests: Testcontainers' Event Hubs emulator (with Azurite) where a
 * Docker engine answers, otherwise the {@link EventHubsTestPeer}. Hubs are declared up front, as
 * the emulator requires. Both can be taken down and brought back on the same address, and both are
 * read with the real {@link EventHubConsumerClient}. The log says which one runs.
 */
public abstract class EventHubsTestHub implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsTestHub.class);

  /** The namespace's connection string (no EntityPath). */
  public abstract String connectionString();

  public String connectionString(String hub) {
    return connectionString() + ";EntityPath=" + hub;
  }

  /** An outage: clients cannot reach the namespace until {@link #bringBack()}. */
  public abstract void takeDown();

  public abstract void bringBack();

  /** Which implementation runs. */
  public abstract String kind();

  /** The peer, when this is the peer (for what only it can observe: transfers, tokens). */
  public Optional<EventHubsTestPeer> peer() {
    return Optional.empty();
  }

  @Override
  public abstract void close();

  /**
   * Starts a namespace with these hubs (name to partition count), each with {@code $Default} and
   * the given extra consumer groups.
   */
  public static EventHubsTestHub start(Map<String, Integer> hubs, String... consumerGroups) {
    boolean docker;
    try {
      docker = DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | Error e) {
      docker = false;
    }
    EventHubsTestHub h =
        docker ? new Emulator(hubs, consumerGroups) : new Peer(hubs, consumerGroups);
    LOG.info(
        "Event Hubs test namespace: {}{}",
        h.kind(),
        docker ? "" : " (no Docker engine answers here, so no Testcontainers emulator)");
    return h;
  }

  private EventHubConsumerClient consumer(String hub) {
    return new EventHubClientBuilder()
        .connectionString(connectionString(hub))
        .consumerGroup(EventHubClientBuilder.DEFAULT_CONSUMER_GROUP_NAME)
        .retryOptions(new AmqpRetryOptions().setTryTimeout(Duration.ofSeconds(10)))
        .buildConsumerClient();
  }

  /** The last sequence number of each partition now: read after it with {@link #read}. */
  public Map<String, Long> mark(String hub) {
    Map<String, Long> out = new HashMap<>();
    try (EventHubConsumerClient c = consumer(hub)) {
      for (String p : c.getPartitionIds()) {
        out.put(p, c.getPartitionProperties(p).getLastEnqueuedSequenceNumber());
      }
    }
    return out;
  }

  /** An event as a consumer reads it. */
  public record ReadEvent(String partitionId, EventData data) {
    public String body() {
      return data.getBodyAsString();
    }
  }

  /**
   * Every event after {@code mark} (all of them when empty), by partition in order, with the real
   * consumer client, until {@code expected} were read or the timeout; then a short grace period in
   * which duplicates would show up.
   */
  public List<ReadEvent> read(String hub, Map<String, Long> mark, int expected, Duration timeout) {
    Map<String, List<ReadEvent>> byPartition = new LinkedHashMap<>();
    Map<String, Long> after = new HashMap<>(mark);
    long deadline = System.nanoTime() + timeout.toNanos();
    long graceEnd = Long.MAX_VALUE;
    try (EventHubConsumerClient c = consumer(hub)) {
      List<String> partitions = new ArrayList<>();
      c.getPartitionIds().forEach(partitions::add);
      while (System.nanoTime() < Math.min(deadline, graceEnd)) {
        for (String p : partitions) {
          Long last = after.get(p);
          EventPosition from =
              last == null || last < 0
                  ? EventPosition.earliest()
                  : EventPosition.fromSequenceNumber(last, false);
          for (PartitionEvent e : c.receiveFromPartition(p, 500, from, Duration.ofMillis(300))) {
            byPartition
                .computeIfAbsent(p, k -> new ArrayList<>())
                .add(new ReadEvent(p, e.getData()));
            after.put(p, e.getData().getSequenceNumber());
          }
        }
        int n = byPartition.values().stream().mapToInt(List::size).sum();
        if (n >= expected && graceEnd == Long.MAX_VALUE) {
          graceEnd = System.nanoTime() + Duration.ofMillis(500).toNanos();
        }
      }
    }
    List<ReadEvent> out = new ArrayList<>();
    byPartition.values().forEach(out::addAll);
    return out;
  }

  static final class Peer extends EventHubsTestHub {
    private final EventHubsTestPeer peer = new EventHubsTestPeer();

    Peer(Map<String, Integer> hubs, String... consumerGroups) {
      hubs.forEach((name, partitions) -> peer.hub(name, partitions, consumerGroups));
      peer.start();
    }

    @Override
    public String connectionString() {
      return peer.connectionString();
    }

    @Override
    public void takeDown() {
      peer.stop();
    }

    @Override
    public void bringBack() {
      peer.start();
    }

    @Override
    public String kind() {
      return "AMQP test peer (proton-j) on port " + peer.port();
    }

    @Override
    public Optional<EventHubsTestPeer> peer() {
      return Optional.of(peer);
    }

    @Override
    public void close() {
      peer.close();
    }
  }

  static final class Emulator extends EventHubsTestHub {
    private final Network network = Network.newNetwork();
    private final AzuriteContainer azurite;
    private final EventHubsEmulatorContainer emulator;

    Emulator(Map<String, Integer> hubs, String... consumerGroups) {
      azurite =
          new AzuriteContainer("mcr.microsoft.com/azure-storage/azurite:3.33.0")
              .withNetwork(network)
              .withNetworkAliases("azurite");
      StringBuilder entities = new StringBuilder();
      hubs.forEach(
          (name, partitions) -> {
            StringBuilder groups = new StringBuilder();
            for (String g : consumerGroups) {
              groups
                  .append(groups.isEmpty() ? "" : ",")
                  .append("{\"Name\":\"")
                  .append(g)
                  .append("\"}");
            }
            entities
                .append(entities.isEmpty() ? "" : ",")
                .append("{\"Name\":\"")
                .append(name)
                .append("\",\"PartitionCount\":\"")
                .append(partitions)
                .append("\",\"ConsumerGroups\":[")
                .append(groups)
                .append("]}");
          });
      String config =
          "{\"UserConfig\":{\"NamespaceConfig\":[{\"Type\":\"EventHub\",\"Name\":\"emulatorNs1\","
              + "\"Entities\":["
              + entities
              + "]}],\"LoggingConfig\":{\"Type\":\"File\"}}}";
      emulator =
          new EventHubsEmulatorContainer(
                  "mcr.microsoft.com/azure-messaging/eventhubs-emulator:2.1.0")
              .acceptLicense()
              .withNetwork(network)
              .withAzuriteContainer(azurite)
              .withConfig(Transferable.of(config));
      emulator.start();
    }

    @Override
    public String connectionString() {
      return emulator.getConnectionString().replaceAll(";$", "");
    }

    @Override
    public void takeDown() {
      // Paused, not stopped: the mapped port stays the same, as for a namespace that hangs.
      emulator.getDockerClient().pauseContainerCmd(emulator.getContainerId()).exec();
    }

    @Override
    public void bringBack() {
      emulator.getDockerClient().unpauseContainerCmd(emulator.getContainerId()).exec();
    }

    @Override
    public String kind() {
      return "Testcontainers Event Hubs emulator";
    }

    @Override
    public void close() {
      emulator.stop();
      azurite.stop();
      network.close();
    }
  }
}
