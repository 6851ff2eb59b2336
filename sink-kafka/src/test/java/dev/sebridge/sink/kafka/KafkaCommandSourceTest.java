package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.testing.CommandSourceContractTest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Kafka command source against a real broker: the shared contract, and Kafka's routing. */
class KafkaCommandSourceTest extends CommandSourceContractTest {
  static final int PARTITIONS = 5;
  static KafkaTestBroker broker;
  static String topic;

  @BeforeAll
  static void start() {
    broker = KafkaTestBroker.start();
    topic = KafkaTestBroker.uniqueTopic("contract");
    broker.createCommandsTopic(topic, PARTITIONS);
  }

  @Override
  protected CommandSource source(String vmId, Clock clock) {
    return new KafkaCommandSource(
        topic,
        Map.of("bootstrap.servers", broker.bootstrapServers(), "fetch.max.wait.ms", "100"),
        vmId,
        clock);
  }

  @Override
  protected void publish(String vmId, byte[] payload) throws Exception {
    KafkaCommandPublisher.publish(broker.bootstrapServers(), topic, vmId, payload, Map.of());
  }

  @Override
  protected int partitions() {
    return PARTITIONS;
  }

  @Override
  protected boolean knowsTheEnd() {
    return true; // the lag of its last fetch
  }

  @AfterAll
  static void stop() {
    broker.close();
  }

  @Test
  void thePartitionFunctionIsKafkasDefaultPartitioner() throws Exception {
    String topic = KafkaTestBroker.uniqueTopic("partitions");
    broker.createTopic(topic, 7);
    try (var p =
        new KafkaProducer<>(
            Map.<String, Object>of("bootstrap.servers", broker.bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (int i = 0; i < 50; i++) {
        String vmId = java.util.UUID.randomUUID().toString();
        // No partition given: Kafka's default partitioner decides from the key.
        var meta =
            p.send(
                    new ProducerRecord<>(
                        topic, vmId.getBytes(StandardCharsets.UTF_8), new byte[] {1}))
                .get();
        assertThat(CommandPartitioning.partitionFor(vmId, 7)).as(vmId).isEqualTo(meta.partition());
      }
    }
  }

  @Test
  void thePartitionFunctionEqualsKafkasMurmur2ForAnyKey() {
    java.util.Random random = new java.util.Random(42);
    for (int i = 0; i < 100_000; i++) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(48);
      for (int j = 0; j < length; j++) {
        // ASCII mostly, some multi-byte characters: every tail length of the hash is exercised.
        b.append(
            random.nextInt(10) == 0
                ? (char) (0x80 + random.nextInt(0x3000))
                : (char) (32 + random.nextInt(95)));
      }
      String key = b.toString();
      int partitions = 1 + random.nextInt(1024);
      int kafka =
          org.apache.kafka.common.utils.Utils.toPositive(
                  org.apache.kafka.common.utils.Utils.murmur2(
                      CommandPartitioning.canonical(key).getBytes(StandardCharsets.UTF_8)))
              % partitions;
      assertThat(CommandPartitioning.partitionFor(key, partitions)).as(key).isEqualTo(kafka);
    }
  }
}
