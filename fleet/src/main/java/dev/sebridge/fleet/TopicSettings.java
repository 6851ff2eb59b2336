package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * Settings of the service's own topics that the service raises or lowers at start on a topic made
 * earlier or by hand ({@link FleetTopics}): how large a record the rollouts' topics take, how often
 * a compacted topic closes a segment.
 */
final class TopicSettings {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TopicSettings.class);

  private TopicSettings() {}

  /**
   * How often a compacted topic of the service (the views, the inventory, Streams' changelogs)
   * starts a new segment. Compaction cleans closed segments only, and an instance that starts reads
   * the views' topics whole: with the broker's default (a segment closes at 1 GiB or after 7 days)
   * the VMs' view kept every heartbeat of hours uncompacted, 100,000 records a minute at 100,000
   * VMs, all read again at each start. With a minute, what a start reads is about the latest record
   * per key, the records since the last cleaning (at most as many again, at the broker's default
   * {@code min.cleanable.dirty.ratio} of 0.5) and a minute's.
   */
  static final Duration VIEW_SEGMENT = Duration.ofMinutes(1);

  /**
   * A compacted topic made before {@link #VIEW_SEGMENT} (or by hand) rolls its segments that often
   * from now on: set, and logged, when it is compacted and rolls less often. Only what a start
   * reads depends on it, so a cluster that does not let the service read or change the setting gets
   * a WARN, not a stopped service.
   */
  static void rollsOften(Admin admin, String topic) throws InterruptedException {
    long ms = VIEW_SEGMENT.toMillis();
    try {
      Map<String, String> now = settings(admin, topic, "cleanup.policy", "segment.ms");
      if (!now.getOrDefault("cleanup.policy", "").contains("compact")
          || (now.get("segment.ms") != null && Long.parseLong(now.get("segment.ms")) <= ms)) {
        return;
      }
      set(admin, topic, "segment.ms", Long.toString(ms));
      LOG.info(
          "topic {}: segment.ms {} set to {} (compaction cleans closed segments only; a start reads"
              + " the views whole)",
          topic,
          now.get("segment.ms"),
          ms);
    } catch (IllegalStateException e) {
      LOG.warn(
          "topic {}: segment.ms left as it is, so a start may read more than the latest record per"
              + " key: {}",
          topic,
          e.getMessage());
    }
  }

  private static Map<String, String> settings(Admin admin, String topic, String... names)
      throws InterruptedException {
    var resource =
        new org.apache.kafka.common.config.ConfigResource(
            org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
    try {
      var config =
          admin.describeConfigs(List.of(resource)).all().get(60, TimeUnit.SECONDS).get(resource);
      Map<String, String> out = new java.util.HashMap<>();
      for (String name : names) {
        var entry = config.get(name);
        if (entry != null && entry.value() != null) {
          out.put(name, entry.value());
        }
      }
      return out;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(
          "cannot read " + String.join(", ", names) + " of " + topic + ": " + e.getCause(), e);
    }
  }

  private static java.util.Optional<String> setting(Admin admin, String topic, String name)
      throws InterruptedException {
    return java.util.Optional.ofNullable(settings(admin, topic, name).get(name));
  }

  private static void set(Admin admin, String topic, String name, String value)
      throws InterruptedException {
    var resource =
        new org.apache.kafka.common.config.ConfigResource(
            org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
    try {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  resource,
                  List.of(
                      new org.apache.kafka.clients.admin.AlterConfigOp(
                          new org.apache.kafka.clients.admin.ConfigEntry(name, value),
                          org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET))))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(
          "cannot set " + name + " of " + topic + " to " + value + ": " + e.getCause(), e);
    }
  }

  /**
   * A rollouts view topic made before rollouts could be large (or by hand) takes records of up to
   * {@link FleetTopology#MAX_RECORD_BYTES}: raised when it takes less.
   */
  static void largeEnough(Admin admin, String topic) throws InterruptedException {
    long max = FleetTopology.MAX_RECORD_BYTES;
    if (setting(admin, topic, "max.message.bytes")
        .map(Long::parseLong)
        .filter(v -> v >= max)
        .isEmpty()) {
      set(admin, topic, "max.message.bytes", Long.toString(max));
    }
  }
}
