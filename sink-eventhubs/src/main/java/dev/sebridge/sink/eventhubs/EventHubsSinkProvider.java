package dev.sebridge.sink.eventhubs;

import com.azure.messaging.eventhubs.EventHubProducerClient;
import dev.sebridge.config.ConfigKey;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@code eventhubs} sink. */
public final class EventHubsSinkProvider implements EventSinkProvider {
  private static final Logger LOG = LoggerFactory.getLogger(EventHubsSinkProvider.class);

  static final EventHubsEndpoint ENDPOINT =
      new EventHubsEndpoint(
          "sink.eventhubs",
          "Event Hubs sink",
          null,
          "the Azure Event Hubs Data Sender role on the hub");

  @Override
  public String name() {
    return "eventhubs";
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return ENDPOINT.keys();
  }

  @Override
  public List<ConfigProblem> validate(Configuration config) {
    return ENDPOINT.validate(config);
  }

  @Override
  public EventSink create(SinkContext context) {
    Configuration config = context.config();
    LOG.info("Event Hubs sink: {}", ENDPOINT.describe(config));
    Supplier<EventHubProducerClient> factory =
        () -> ENDPOINT.builder(config, EventHubsEndpoint.retries()).buildProducerClient();
    return new EventHubsSink(factory);
  }
}
