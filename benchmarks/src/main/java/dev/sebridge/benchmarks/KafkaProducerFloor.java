package dev.sebridge.benchmarks;

import dev.sebridge.sink.kafka.KafkaSink;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The least a JVM agent with a Kafka sink could weigh: run on the agent's class path with the
 * launcher's JVM options, it either idles ({@code idle}: the JVM alone) or keeps one Kafka producer
 * with the sink's delivery settings sending one small record a second ({@code BOOTSTRAP TOPIC}).
 * The footprint benchmark measures both beside the agent, to show which part of the agent's memory
 * is the JVM and the Kafka client, whatever the agent does.
 */
public final class KafkaProducerFloor {
  private KafkaProducerFloor() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      Thread.currentThread().join(); // idle until the benchmark stops the process
    }
    // The sink's delivery settings and, as the agent, no client metrics (JMX or pushed).
    Map<String, Object> config = new HashMap<>(KafkaSink.required());
    config.putAll(KafkaSink.NO_CLIENT_METRICS);
    config.put("bootstrap.servers", args[0]);
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config);
    byte[] value = new byte[1200]; // about the size of an envelope
    Executors.newSingleThreadScheduledExecutor()
        .scheduleAtFixedRate(
            () -> producer.send(new ProducerRecord<>(args[1], value)), 0, 1, TimeUnit.SECONDS);
    Thread.currentThread().join(); // until the benchmark stops the process
  }
}
