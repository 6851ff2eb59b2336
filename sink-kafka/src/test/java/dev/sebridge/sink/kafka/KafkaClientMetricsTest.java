package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.Configuration;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The agent's Kafka clients push no client metrics (KIP-714): the real clients, built from the
 * agent's settings, say telemetry is off, so none of its code is loaded (issue 21's footprint). An
 * operator can still turn it on through the pass-through settings. No broker is needed: a client
 * with telemetry off answers at once.
 */
class KafkaClientMetricsTest {
  // Nothing listens there; the clients never connect in these tests.
  static final String NOWHERE = "127.0.0.1:9";

  @Test
  void theSinksProducerPushesNoMetrics() {
    Map<String, Object> props =
        KafkaSinkProvider.producerConfig(
            Configuration.of(Map.of("sink.kafka.bootstrap-servers", NOWHERE)));
    assertThat(props).containsEntry("metric.reporters", "");
    try (var producer = new KafkaProducer<byte[], byte[]>(props)) {
      assertPushOff(() -> producer.clientInstanceId(Duration.ofMillis(1)));
    }
  }

  @Test
  void theCommandConsumerAndItsTopicCheckPushNoMetrics() {
    Map<String, Object> props =
        KafkaCommandSourceProvider.consumerConfig(
            Configuration.of(Map.of("commands.kafka.bootstrap-servers", NOWHERE)));
    try (var consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      assertPushOff(() -> consumer.clientInstanceId(Duration.ofMillis(1)));
    }
    try (Admin admin = Admin.create(CommandTopicGuard.adminProps(props))) {
      assertPushOff(() -> admin.clientInstanceId(Duration.ofMillis(1)));
    }
  }

  /** A client with telemetry off refuses to name its instance, saying which setting to change. */
  static void assertPushOff(ThrowingCallable clientInstanceId) {
    assertThatThrownBy(clientInstanceId)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("enable.metrics.push");
  }

  @Test
  void anOperatorCanTurnThePushBackOn() {
    assertThat(
            KafkaSinkProvider.producerConfig(
                Configuration.of(
                    Map.of(
                        "sink.kafka.bootstrap-servers",
                        NOWHERE,
                        "sink.kafka.producer.enable.metrics.push",
                        "true"))))
        .containsEntry("enable.metrics.push", "true");
    assertThat(
            KafkaCommandSourceProvider.consumerConfig(
                Configuration.of(
                    Map.of(
                        "commands.kafka.bootstrap-servers",
                        NOWHERE,
                        "commands.kafka.consumer.enable.metrics.push",
                        "true"))))
        .containsEntry("enable.metrics.push", "true");
  }
}
