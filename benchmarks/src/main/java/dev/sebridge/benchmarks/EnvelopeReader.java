package dev.sebridge.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Records, per "EventId:Transition", when a consumer could first read the envelope. */
final class EnvelopeReader implements AutoCloseable {
  final Map<String, Long> seenNanos = new ConcurrentHashMap<>();
  final KafkaConsumer<byte[], byte[]> consumer;
  final Thread thread;
  volatile boolean stop;

  EnvelopeReader(EmbeddedKafkaBroker kafka, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "fetch.max.wait.ms",
                "10",
                "fetch.min.bytes",
                "1"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> parts =
        List.of(0, 1, 2).stream().map(p -> new TopicPartition(topic, p)).toList();
    consumer.assign(parts);
    consumer.seekToBeginning(parts);
    thread = new Thread(this::loop, "bench-reader");
    thread.setDaemon(true);
    thread.start();
  }

  void loop() {
    while (!stop) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
        long now = System.nanoTime();
        try {
          JsonNode e = Benchmarks.JSON.readTree(r.value());
          JsonNode d = e.path("data");
          if (e.path("type").asText().startsWith("dev.sebridge.scheduledevent.")) {
            seenNanos.putIfAbsent(
                d.path("event").path("EventId").asText() + ":" + d.path("transition").asText(),
                now);
          }
        } catch (IOException ignored) {
          // not ours
        }
      }
    }
    consumer.close();
  }

  long await(String key, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      Long t = seenNanos.get(key);
      if (t != null) {
        return t;
      }
      Thread.sleep(1);
    }
    return -1;
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.join(2000);
  }
}
