package dev.sebridge.sink.eventhubs;

import com.azure.messaging.eventhubs.EventHubConsumerAsyncClient;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.ConfigType;
import dev.sebridge.config.Configuration;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.CommandSourceProvider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** The {@code eventhubs} command source. */
public final class EventHubsCommandSourceProvider implements CommandSourceProvider {
  static final EventHubsEndpoint ENDPOINT =
      new EventHubsEndpoint(
          "commands.eventhubs",
          "Event Hubs command source",
          "sebridge-commands",
          "the Azure Event Hubs Data Receiver role on the commands hub");

  public static final ConfigKey<String> CONSUMER_GROUP =
      ConfigKey.builder("commands.eventhubs.consumer-group", ConfigType.STRING)
          .defaultValue("$Default")
          .doc(
              "Event Hubs command source: the consumer group agents read in. With"
                  + " commands.eventhubs.consumer-groups above 1, the prefix of the groups"
                  + " <prefix>-0 ... <prefix>-(N-1).")
          .build();

  public static final ConfigKey<Integer> CONSUMER_GROUPS =
      ConfigKey.builder("commands.eventhubs.consumer-groups", ConfigType.INT)
          .defaultValue(1)
          .doc(
              "Event Hubs command source: how many consumer groups the fleet spreads over, so that"
                  + " no partition has more than 5 readers in a group (see docs/eventhubs.md for"
                  + " the fleet size each tier supports).")
          .validator(n -> n >= 1 && n <= 1000 ? Optional.empty() : Optional.of("must be 1 to 1000"))
          .build();

  @Override
  public String name() {
    return "eventhubs";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    List<ConfigKey<?>> keys = new ArrayList<>(ENDPOINT.keys());
    keys.add(CONSUMER_GROUP);
    keys.add(CONSUMER_GROUPS);
    return keys;
  }

  @Override
  public List<ConfigProblem> validate(Configuration config) {
    return ENDPOINT.validate(config);
  }

  /**
   * The consumer group a VM reads in: the configured one, or with N groups the one its vmId maps to
   * (an independent hash of the vmId, so that a partition's VMs spread over all groups).
   */
  public static String consumerGroup(Configuration config, String vmId) {
    int groups = config.get(CONSUMER_GROUPS);
    String base = config.get(CONSUMER_GROUP);
    if (groups == 1) {
      return base;
    }
    return base + "-" + CommandPartitioning.partitionFor(vmId + "/consumer-group", groups);
  }

  @Override
  public CommandSource create(Configuration config, String vmId) {
    return create(config, vmId, Clock.systemUTC());
  }

  CommandSource create(Configuration config, String vmId, Clock clock) {
    String group = consumerGroup(config, vmId);
    Supplier<EventHubConsumerAsyncClient> factory =
        () ->
            ENDPOINT
                .builder(config, EventHubsEndpoint.retries())
                .consumerGroup(group)
                .prefetchCount(10)
                .buildAsyncConsumerClient();
    return new EventHubsCommandSource(factory, ENDPOINT.hub(config), vmId, clock);
  }
}
