package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaBrokerTest {
  @Test
  void servesClientsAndKeepsDataAcrossARestartOnTheSamePort() throws Exception {
    try (EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker().start()) {
      broker.createTopic("t", 1);
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
