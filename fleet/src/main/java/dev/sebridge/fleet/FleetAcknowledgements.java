package dev.sebridge.fleet;

import dev.sebridge.azure.AzureTokens;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.agentless.Acknowledger;
import dev.sebridge.fleet.agentless.MaintenanceApi;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.fleet.streams.Topics;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Approvals without an agent as configured ({@link AcknowledgeKeys}): the acknowledger that reads
 * the request processor's orders and acknowledges through Azure's Maintenance API. Every instance
 * runs one; the orders' partitions are shared among them (one consumer group).
 */
final class FleetAcknowledgements implements AutoCloseable {
  /** Orders per poll: each may be a call to Azure of up to 4 tries of 20 s. */
  static final int ORDERS_PER_POLL = 16;

  private final Configuration config;
  private Acknowledger acknowledger;

  FleetAcknowledgements(Configuration config) {
    this.config = config;
  }

  boolean enabled() {
    return config.get(AcknowledgeKeys.ENABLED);
  }

  /** Starts acknowledging (nothing when not enabled). */
  void start(
      Map<String, Object> kafka,
      Topics topics,
      String applicationId,
      Supplier<FleetInventory.Access> access,
      Clock clock,
      FleetMetrics metrics,
      dev.sebridge.fleet.api.FleetViews views) {
    if (!enabled()) {
      return;
    }
    FleetInventory.Access a = access.get();
    MaintenanceApi api =
        new MaintenanceApi(
            config.get(AcknowledgeKeys.ENDPOINT),
            config.get(AcknowledgeKeys.API_VERSION),
            a.credential(),
            a.http(),
            clock);
    Map<String, Object> c = new HashMap<>(kafka);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, applicationId + "-acknowledger");
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "sebridge-fleet-acknowledger");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, ORDERS_PER_POLL);
    // A poll's calls end with the orders' lifetime (at most 10 minutes) and one call more
    // (MaintenanceApi.CALL_TIMEOUT): no call starts, or runs, past an order's expiry.
    c.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 20 * 60 * 1000);
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "sebridge-fleet-acknowledger");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // One id per process: a producer made again fences the one before; an instance that died
    // mid-transaction leaves it to the transaction timeout (the transaction holds only the
    // outcomes, begun after Azure answered).
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
    p.put(
        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        applicationId + "-acknowledger-" + UUID.randomUUID());
    acknowledger =
        new Acknowledger(
                () -> new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer()),
                () ->
                    new KafkaProducer<>(
                        p,
                        new StringSerializer(),
                        new JsonSerde<>(ResultReport.class).serializer()),
                topics.of(FleetTopology.ACKNOWLEDGEMENTS),
                topics.of(FleetTopology.BY_REQUEST),
                api,
                clock,
                JsonSerde.JSON,
                requestId -> {
                  try {
                    return views.request(requestId);
                  } catch (RuntimeException notReady) {
                    return java.util.Optional.empty(); // the stores are starting: it waits
                  }
                },
                views::event,
                metrics::acknowledged)
            .start();
    metrics.acknowledger(acknowledger::healthy);
  }

  /** The configured identity's access. */
  static FleetInventory.Access configuredAccess(Configuration config) {
    return new FleetInventory.Access(
        AzureTokens.from(config, AcknowledgeKeys.CREDENTIAL, AcknowledgeKeys.CLIENT_ID),
        new com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder().build());
  }

  @Override
  public void close() {
    if (acknowledger != null) {
      acknowledger.close();
    }
  }
}
