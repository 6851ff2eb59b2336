package dev.sebridge.sink.kafka;

import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * A real Kafka broker for tests: Testcontainers' Kafka where a Docker engine answers, otherwise an
 * {@link EmbeddedKafkaBroker} (single-node KRaft in this JVM). Both can be taken down and brought
 * back on the same address. The log says which one runs.
 */
public abstract class KafkaTestBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTestBroker.class);

  public abstract String bootstrapServers();

  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /**
   * A commands topic, configured as the agents require ({@link KafkaCommandSource#TOPIC_CONFIGS}).
   */
  public void createCommandsTopic(String name, int partitions) {
    createTopic(name, partitions, KafkaCommandSource.TOPIC_CONFIGS);
  }

  public abstract void createTopic(String name, int partitions, Map<String, String> configs);

  /** An outage: clients cannot reach the broker until {@link #bringBack()}. */
  public abstract void takeDown();

  public abstract void bringBack();

  /** Which implementation runs ("embedded KRaft" or "Testcontainers"). */
  public abstract String kind();

  @Override
  public abstract void close();

  public static KafkaTestBroker start() {
    boolean docker;
    try {
      docker = DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | Error e) {
      docker = false;
    }
    KafkaTestBroker b = docker ? new Containerized() : new Embedded();
    LOG.info(
        "Kafka test broker: {} on {}{}",
        b.kind(),
        b.bootstrapServers(),
        docker ? "" : " (no Docker engine answers here, so no Testcontainers)");
    return b;
  }

  public static String uniqueTopic(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Every record of a topic (all partitions), from the beginning, until {@code n} or timeout. */
  public List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int n, Duration timeout) {
    return readUntil(topic, records -> records.size() >= n, timeout);
  }

  /**
   * Every committed record of a topic (all partitions), from the beginning, read by one consumer
   * until {@code done} holds for what was read or the timeout passes, then for a short grace period
   * (duplicates beyond what {@code done} asked for show up in it). Never interrupted from outside:
   * the consumer closes normally, and the caller judges what came back.
   */
  public List<ConsumerRecord<byte[], byte[]>> readUntil(
      String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> done, Duration timeout) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", bootstrapServers(), "isolation.level", "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic, Duration.ofSeconds(20)).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!done.test(out) && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      long grace = System.nanoTime() + Duration.ofMillis(300).toNanos();
      while (System.nanoTime() < grace) {
        c.poll(Duration.ofMillis(100)).forEach(out::add);
      }
    }
    return out;
  }

  static final class Embedded extends KafkaTestBroker {
    private final EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker().start();

    @Override
    public String bootstrapServers() {
      return broker.bootstrapServers();
    }

    @Override
    public void createTopic(String name, int partitions, Map<String, String> configs) {
      broker.createTopic(name, partitions, configs);
    }

    @Override
    public void takeDown() {
      broker.stop();
    }

    @Override
    public void bringBack() {
      broker.start();
    }

    @Override
    public String kind() {
      return "embedded KRaft broker (kafka_2.13)";
    }

    @Override
    public void close() {
      broker.close();
    }
  }

  static final class Containerized extends KafkaTestBroker {
    private final KafkaContainer container = new KafkaContainer("apache/kafka-native:4.1.0");

    Containerized() {
      container.start();
    }

    @Override
    public String bootstrapServers() {
      return container.getBootstrapServers();
    }

    @Override
    public void createTopic(String name, int partitions, Map<String, String> configs) {
      try (var admin =
          org.apache.kafka.clients.admin.Admin.create(
              Map.of("bootstrap.servers", bootstrapServers()))) {
        admin
            .createTopics(
                List.of(
                    new org.apache.kafka.clients.admin.NewTopic(name, partitions, (short) 1)
                        .configs(configs)))
            .all()
            .get();
      } catch (Exception e) {
        throw new IllegalStateException("cannot create topic " + name, e);
      }
    }

    @Override
    public void takeDown() {
      // Paused, not stopped: the mapped port stays the same, as for a broker that hangs.
      container.getDockerClient().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void bringBack() {
      container.getDockerClient().unpauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public String kind() {
      return "Testcontainers Kafka";
    }

    @Override
    public void close() {
      container.stop();
    }
  }
}
