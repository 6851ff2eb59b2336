package dev.sebridge.sink.kafka;

import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.ReceivedCommand;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads this VM's approval commands: the one partition of the commands topic its vmId hashes to
 * ({@link CommandPartitioning}), {@code assign()}ed without a consumer group; records keyed by
 * other VMs that share the partition are skipped. The position (next offset) is the core's to
 * persist; without one, reading starts 11 minutes back, which covers every command still valid.
 *
 * <p>Before reading anything it checks that the topic cannot hold a record larger than 64 KiB after
 * decompression ({@link CommandTopicGuard}), unless {@code commands.kafka.verify-topic=false}.
 */
public final class KafkaCommandSource implements CommandSource {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaCommandSource.class);
  static final Duration LOOKBACK = Duration.ofMinutes(11);

  /**
   * How the commands topic must be configured: stored uncompressed, batches of at most 64 KiB, so
   * no record decompresses to more in an agent ({@link CommandTopicGuard}).
   */
  public static final Map<String, String> TOPIC_CONFIGS =
      Map.of(
          "compression.type",
          "uncompressed",
          "max.message.bytes",
          Integer.toString(CommandTopicGuard.MAX_MESSAGE_BYTES));

  private final String topic;
  private final Map<String, Object> props;
  private final String vmId;
  private final Clock clock;
  private final boolean verifyTopic;
  private Consumer<byte[], byte[]> consumer;
  private TopicPartition partition;
  private Optional<String> startPosition = Optional.empty();
  private boolean oneAtATime;

  public KafkaCommandSource(String topic, Map<String, Object> props, String vmId, Clock clock) {
    this(topic, props, vmId, clock, true);
  }

  /**
   * @param verifyTopic check the topic's configuration before reading (see {@link
   *     CommandTopicGuard})
   */
  public KafkaCommandSource(
      String topic, Map<String, Object> props, String vmId, Clock clock, boolean verifyTopic) {
    this.topic = topic;
    this.props = props;
    this.vmId = vmId;
    this.clock = clock;
    this.verifyTopic = verifyTopic;
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public synchronized boolean atEnd() {
    if (consumer == null || partition == null) {
      return false;
    }
    OptionalLong lag = consumer.currentLag(partition); // from the last fetch; no request
    return lag.isPresent() && lag.getAsLong() == 0;
  }

  @Override
  public synchronized void readOneAtATime() {
    oneAtATime = true;
  }

  @Override
  public synchronized void open(Optional<String> position) {
    this.startPosition = position;
    Map<String, Object> p = props;
    if (oneAtATime) {
      // The consumer decompresses a fetched batch only when its records are drained: one record
      // a poll leaves the batches after it untouched.
      p = new java.util.HashMap<>(props);
      p.put("max.poll.records", "1");
    }
    this.consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Finds and seeks the partition; retried by each poll until the broker and topic answer. */
  private void assign() {
    if (verifyTopic) {
      CommandTopicGuard.check(props, topic, Duration.ofSeconds(10));
    }
    List<PartitionInfo> parts = consumer.partitionsFor(topic, Duration.ofSeconds(10));
    if (parts == null || parts.isEmpty()) {
      throw new IllegalStateException("commands topic " + topic + " does not exist");
    }
    TopicPartition tp =
        new TopicPartition(topic, CommandPartitioning.partitionFor(vmId, parts.size()));
    consumer.assign(List.of(tp));
    if (startPosition.isPresent()) {
      consumer.seek(tp, Long.parseLong(startPosition.get()));
    } else {
      // The end offset first, then the lookback: a command written in between has an offset at or
      // after that end and is read. (seekToEnd would resolve lazily, after it, and skip it.)
      long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(10)).get(tp);
      Map<TopicPartition, OffsetAndTimestamp> at =
          consumer.offsetsForTimes(
              Map.of(tp, clock.millis() - LOOKBACK.toMillis()), Duration.ofSeconds(10));
      OffsetAndTimestamp o = at.get(tp);
      consumer.seek(tp, o == null ? end : o.offset());
    }
    partition = tp;
    LOG.info(
        "reading commands from {} (partition {} of {}) at offset {}",
        topic,
        tp.partition(),
        parts.size(),
        consumer.position(tp));
  }

  @Override
  public synchronized List<ReceivedCommand> poll(Duration timeout) {
    if (consumer == null) {
      throw new IllegalStateException("not open");
    }
    if (partition == null) {
      assign();
    }
    List<ReceivedCommand> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(timeout)) {
      if (r.key() == null
          || !CommandPartitioning.sameVm(new String(r.key(), StandardCharsets.UTF_8), vmId)) {
        continue; // another VM's command in the same partition
      }
      out.add(
          new ReceivedCommand(
              r.value() == null ? new byte[0] : r.value(),
              Long.toString(r.offset() + 1),
              topic + "/" + r.partition() + "@" + r.offset(),
              headers(r)));
    }
    return out;
  }

  /** The record's headers (CloudEvents binary mode: {@code ce_*}, {@code content-type}). */
  private static Map<String, String> headers(ConsumerRecord<byte[], byte[]> r) {
    Map<String, String> h = new java.util.HashMap<>();
    for (org.apache.kafka.common.header.Header header : r.headers()) {
      if (header.value() != null && header.value().length <= 4096 && h.size() < 64) {
        h.put(
            header.key().toLowerCase(java.util.Locale.ROOT),
            new String(header.value(), StandardCharsets.UTF_8));
      }
    }
    return h;
  }

  @Override
  public synchronized OptionalLong readPosition() {
    if (partition == null) {
      assign();
    }
    return OptionalLong.of(consumer.position(partition));
  }

  @Override
  public synchronized Optional<Skipped> skipAt(long position) {
    if (partition == null) {
      assign();
    }
    long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(10)).get(partition);
    if (position >= end || position < consumer.position(partition)) {
      return Optional.empty();
    }
    // Every record before it was read already (the agent died fetching at this position).
    consumer.seek(partition, position + 1);
    return Optional.of(
        new Skipped(
            topic + "/" + partition.partition() + "@" + position, Long.toString(position + 1)));
  }

  @Override
  public synchronized void close() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(2));
      consumer = null;
    }
  }
}
