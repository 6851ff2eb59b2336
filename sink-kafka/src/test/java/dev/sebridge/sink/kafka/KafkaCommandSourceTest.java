package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.command.ReceivedCommand;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KafkaCommandSourceTest {
  static KafkaTestBroker broker;

  @BeforeAll
  static void start() {
    broker = KafkaTestBroker.start();
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
                  org.apache.kafka.common.utils.Utils.murmur2(key.getBytes(StandardCharsets.UTF_8)))
              % partitions;
      assertThat(CommandPartitioning.partitionFor(key, partitions)).as(key).isEqualTo(kafka);
    }
  }

  @Test
  void readsOnlyItsOwnCommandsAndResumesFromAPosition() throws Exception {
    String topic = KafkaTestBroker.uniqueTopic("commands");
    broker.createTopic(topic, 3);
    String me = "vm-me";
    for (String vm : List.of(me, "vm-other-1", me, "vm-other-2", "vm-other-3", me)) {
      KafkaCommandPublisher.publish(
          broker.bootstrapServers(),
          topic,
          vm,
          ("for " + vm).getBytes(StandardCharsets.UTF_8),
          Map.of());
    }
    Map<String, Object> props =
        Map.of("bootstrap.servers", broker.bootstrapServers(), "fetch.max.wait.ms", "100");
    List<ReceivedCommand> got =
        readAll(new KafkaCommandSource(topic, props, me, Clock.systemUTC()), Optional.empty(), 3);
    assertThat(got)
        .hasSize(3)
        .allSatisfy(
            c ->
                assertThat(new String(c.payload(), StandardCharsets.UTF_8)).isEqualTo("for vm-me"));
    // Resuming after the second command yields only the third.
    List<ReceivedCommand> rest =
        readAll(
            new KafkaCommandSource(topic, props, me, Clock.systemUTC()),
            Optional.of(got.get(1).position()),
            1);
    assertThat(rest).extracting(ReceivedCommand::position).containsExactly(got.get(2).position());
  }

  static List<ReceivedCommand> readAll(KafkaCommandSource s, Optional<String> position, int n) {
    List<ReceivedCommand> out = new ArrayList<>();
    s.open(position);
    try {
      long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (out.size() < n && System.nanoTime() < end) {
        out.addAll(s.poll(Duration.ofMillis(200)));
      }
      out.addAll(s.poll(Duration.ofMillis(300)));
    } finally {
      s.close();
    }
    return out;
  }
}
