package dev.sebridge.sink.kafka;

import dev.sebridge.command.CommandPartitioning;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes a signed command to the partition its target agent reads ({@code sebridge approve}).
 */
public final class KafkaCommandPublisher {
  private KafkaCommandPublisher() {}

  public static RecordMetadata publish(
      String bootstrapServers, String topic, String vmId, byte[] command, Map<String, Object> extra)
      throws Exception {
    Map<String, Object> props = new HashMap<>(extra);
    props.put("bootstrap.servers", bootstrapServers);
    props.put("acks", "all");
    props.put("enable.idempotence", "true");
    props.put("max.block.ms", "15000");
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      List<PartitionInfo> parts = p.partitionsFor(topic);
      int partition = CommandPartitioning.partitionFor(vmId, parts.size());
      RecordHeaders h = new RecordHeaders();
      h.add(
          "content-type",
          "application/cloudevents+json; charset=utf-8".getBytes(StandardCharsets.UTF_8));
      h.add("ce_type", "dev.sebridge.command.approve.v1".getBytes(StandardCharsets.UTF_8));
      return p.send(
              new ProducerRecord<>(
                  topic, partition, vmId.getBytes(StandardCharsets.UTF_8), command, h))
          .get(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
