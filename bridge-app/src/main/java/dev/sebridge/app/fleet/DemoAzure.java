package dev.sebridge.app.fleet;

import dev.sebridge.simulator.azure.LocalAzure;
import dev.sebridge.simulator.azure.LoopbackTls;
import dev.sebridge.simulator.azure.ResourceGraphEndpoint;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The fleet demo's Azure: the service's keys and access for the simulator's {@link LocalAzure}, and
 * Event Grid's subscription writing its deliveries to the hub.
 */
final class DemoAzure {
  private DemoAzure() {}

  /** Where Event Grid's subscription writes Azure's central deliveries (fleet.central-events). */
  static final String CENTRAL_TOPIC =
      "sebridge-fleet-" + dev.sebridge.fleet.streams.FleetTopology.AGENTLESS_EVENTS;

  /** {@code base} and Azure: the inventory, central delivery, acknowledging. */
  static Map<String, String> config(LocalAzure azure, Map<String, String> base) {
    Map<String, String> c = new java.util.HashMap<>(base);
    c.put("fleet.inventory.subscriptions", LocalAzure.SUBSCRIPTION);
    c.put("fleet.inventory.endpoint", azure.resourceGraph().endpoint().toString());
    c.put("fleet.central-events", "true");
    c.put("fleet.acknowledge.enabled", "true");
    c.put("fleet.acknowledge.endpoint", azure.maintenance().endpoint().toString());
    return c;
  }

  /** The local Azure's token, and an HTTP client that trusts its certificate. */
  static dev.sebridge.fleet.FleetServiceBuilder access(dev.sebridge.fleet.FleetServiceBuilder b) {
    try {
      com.azure.core.credential.TokenCredential token =
          request ->
              reactor.core.publisher.Mono.just(
                  new com.azure.core.credential.AccessToken(
                      ResourceGraphEndpoint.TOKEN, java.time.OffsetDateTime.now().plusHours(1)));
      com.azure.core.http.HttpClient http =
          new com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder(
                  java.net.http.HttpClient.newBuilder()
                      .sslContext(LoopbackTls.get().clientContext()))
              .build();
      return b.inventory(token, http).acknowledge(token, http);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Event Grid's subscription: Azure's central deliveries written to the hub as they happen. */
  static final class Deliveries implements AutoCloseable {
    private final ScheduledExecutorService pump = Executors.newSingleThreadScheduledExecutor();
    private final org.apache.kafka.clients.producer.KafkaProducer<String, byte[]> producer;

    Deliveries(FleetLab lab, LocalAzure azure) {
      producer =
          new org.apache.kafka.clients.producer.KafkaProducer<>(
              Map.of("bootstrap.servers", lab.broker().bootstrapServers(), "acks", "all"),
              new org.apache.kafka.common.serialization.StringSerializer(),
              new org.apache.kafka.common.serialization.ByteArraySerializer());
      com.fasterxml.jackson.databind.ObjectMapper json =
          new com.fasterxml.jackson.databind.ObjectMapper();
      // What Azure handed over and the hub has not confirmed: sent again next round, in order
      // (Event Grid retries too).
      java.util.Deque<com.fasterxml.jackson.databind.node.ObjectNode> unsent =
          new java.util.ArrayDeque<>();
      pump.scheduleWithFixedDelay(
          () -> {
            unsent.addAll(azure.deliveries());
            while (!unsent.isEmpty()) {
              var d = unsent.peek();
              try {
                producer
                    .send(
                        new org.apache.kafka.clients.producer.ProducerRecord<>(
                            CENTRAL_TOPIC, d.path("id").asText(), json.writeValueAsBytes(d)))
                    .get(10, TimeUnit.SECONDS);
                unsent.remove();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(DemoAzure.class)
                    .warn(
                        "demo: Event Grid's delivery not written yet, again next round: {}",
                        e.toString());
                return;
              }
            }
          },
          0,
          250,
          TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
      pump.shutdownNow();
      producer.close(Duration.ofSeconds(5));
    }
  }
}
