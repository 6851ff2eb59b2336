package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaBrokerTest {
  /**
   * One broker for both claims (a broker start is seconds): it flushes as Kafka does by default,
   * with no fsync after each record (which had made every produce wait on the disk: the benchmarks
   * measured the broker, not the fleet), and it keeps its data across a restart on the same port.
   */
  @Test
  void flushesAsKafkaDoesAndKeepsDataAcrossARestartOnTheSamePort() throws Exception {
    try (EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker().start()) {
      broker.createTopic("t", 1);
      try (Admin admin = broker.admin()) {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "t");
        Config config =
            admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
        assertThat(config.get("flush.messages").value()).isEqualTo(Long.toString(Long.MAX_VALUE));
      }
      Map<String, Object> pc =
          Map.of("bootstrap.servers", broker.bootstrapServers(), "acks", "all");
      try (var p = new KafkaProducer<>(pc, new StringSerializer(), new StringSerializer())) {
        p.send(new ProducerRecord<>("t", "k", "before")).get();
      }
      broker.stop();
      broker.start();
      try (var p = new KafkaProducer<>(pc, new StringSerializer(), new StringSerializer())) {
        p.send(new ProducerRecord<>("t", "k", "after")).get();
      }
      List<String> seen = new ArrayList<>();
      try (var c =
          new KafkaConsumer<>(
              Map.<String, Object>of("bootstrap.servers", broker.bootstrapServers()),
              new StringDeserializer(),
              new StringDeserializer())) {
        c.assign(List.of(new TopicPartition("t", 0)));
        c.seekToBeginning(c.assignment());
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (seen.size() < 2 && System.nanoTime() < end) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
            seen.add(r.value());
          }
        }
      }
      assertThat(seen).containsExactly("before", "after");
    }
  }
}
