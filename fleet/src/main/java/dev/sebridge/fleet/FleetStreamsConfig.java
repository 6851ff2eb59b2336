package dev.sebridge.fleet;

import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.SkipAndCount;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The Kafka Streams settings of the fleet service. Exactly-once (v2): the commands a request sends,
 * its state and its view are committed together. A dead instance's partitions move after the
 * session timeout (10 s), and a standby keeps a warm copy of each store, so the survivor takes over
 * within seconds. Records that cannot be read or applied are counted and skipped ({@link
 * SkipAndCount}). Settings under {@code fleet.kafka.client.*} win.
 */
final class FleetStreamsConfig {
  /** The most an event may be on Event Hubs (and the producer's limit with pre-created topics). */
  static final int MAX_EVENT_HUBS_BYTES = 1024 * 1024;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(FleetStreamsConfig.class);

  private FleetStreamsConfig() {}

  static Properties of(Configuration config, Map<String, Object> kafka) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.get(FleetKeys.APPLICATION_ID));
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, config.get(FleetKeys.STATE_DIR).toString());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, config.get(FleetKeys.REPLICATION));
    // One stream thread: the rollouts task is one partition, and two threads would share two cores
    // with the global thread and the HTTP server for no gain. A transaction spans every task of
    // the thread, and the thread commits every 100 ms; a step must end within the transaction
    // timeout or the instance is fenced, its tasks restored, and the same step run again. Kept at
    // 10 s on purpose: it is also how long the agents (read_committed) wait behind the open
    // transaction of an instance that died. Steps are bounded well under it: a tick reads no
    // fleet-sized scan (ViewIndex), signing spends at most 5 s in any 10 s (SigningBudget).
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 10_000);
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 2_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // Headroom from when a rollout was one record (FleetTopology.MAX_RECORD_BYTES); with
    // pre-created topics (Event Hubs) 1 MiB, the most an event may be there (a rollout is stored
    // in parts; a record over it, an event's view listing thousands of VMs, is counted and
    // skipped by SkipAndCount, never a stopped thread).
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
        config.get(FleetKeys.TOPICS_PRE_CREATED)
            ? MAX_EVENT_HUBS_BYTES
            : FleetTopology.MAX_RECORD_BYTES);
    boolean preCreated = config.get(FleetKeys.TOPICS_PRE_CREATED);
    // Event Hubs' Kafka endpoint takes gzip and no other compression.
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG),
        preCreated ? "gzip" : "zstd");
    if (!preCreated) {
      p.put(
          StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG),
          Integer.toString(FleetTopology.MAX_RECORD_BYTES));
      // The changelogs Streams creates roll as the views do: a task restored on another instance
      // reads about the latest record per key, not hours of heartbeats
      // (TopicSettings.VIEW_SEGMENT).
      p.put(
          StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG),
          Long.toString(TopicSettings.VIEW_SEGMENT.toMillis()));
    }
    p.putAll(kafka);
    if (!StreamsConfig.EXACTLY_ONCE_V2.equals(p.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))) {
      LOG.warn(
          "processing.guarantee is {}, not exactly_once_v2: the rollouts' limit is not a"
              + " promise (a step lost after its approvals went out, or an instance that paused,"
              + " can let two releases into one group); run one instance at least (docs/fleet.md,"
              + " Rollouts, \"Failover and at_least_once\")",
          p.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
    }
    return p;
  }
}
