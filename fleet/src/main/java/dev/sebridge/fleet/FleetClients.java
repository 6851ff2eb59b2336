package dev.sebridge.fleet;

import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.streams.JsonSerde;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** The fleet service's own Kafka clients, beside its streams: their settings. */
final class FleetClients {
  private FleetClients() {}

  /** The Kafka client settings every client of the service starts from. */
  static Map<String, Object> kafka(Configuration config) {
    Map<String, Object> m = new HashMap<>(config.passthrough(FleetKeys.KAFKA_CLIENT));
    m.put("bootstrap.servers", config.get(FleetKeys.BOOTSTRAP_SERVERS));
    return m;
  }

  static <V> Producer<String, V> producer(
      Map<String, Object> kafka, String clientId, Class<V> type) {
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // An API call waits at most 10 s to hand the record over and 30 s for the broker to confirm
    // (Audited.write): it answers 503 "state unknown" before the CLI's 60 s timeout.
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    return new KafkaProducer<>(p, new StringSerializer(), new JsonSerde<>(type).serializer());
  }
}
