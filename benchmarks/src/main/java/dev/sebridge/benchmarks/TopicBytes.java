package dev.sebridge.benchmarks;

import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;

/**
 * What a starting fleet instance reads whole, as the broker holds it: the global views' topics
 * (every instance reads them from the start) and Kafka Streams' changelogs (the tasks it restores),
 * in bytes on disk; compacted topics hold the latest record per key plus what was not cleaned yet.
 *
 * @param views bytes of the {@code -views-} and {@code -inventory} topics
 * @param viewsVms of them, the VMs' view
 * @param changelogs bytes of the {@code -changelog} topics
 */
record TopicBytes(long views, long viewsVms, long changelogs) {
  static TopicBytes of(EmbeddedKafkaBroker kafka) throws Exception {
    long views = 0;
    long vms = 0;
    long changelogs = 0;
    try (Admin admin = kafka.admin()) {
      Map<Integer, Map<String, LogDirDescription>> dirs =
          admin.describeLogDirs(java.util.List.of(1)).allDescriptions().get(60, TimeUnit.SECONDS);
      for (LogDirDescription dir : dirs.getOrDefault(1, Map.of()).values()) {
        for (var e : dir.replicaInfos().entrySet()) {
          String topic = e.getKey().topic();
          ReplicaInfo r = e.getValue();
          if (topic.endsWith("-changelog")) {
            changelogs += r.size();
          } else if (topic.contains("-views-") || topic.endsWith("-inventory")) {
            views += r.size();
            if (topic.endsWith("-views-vms")) {
              vms += r.size();
            }
          }
        }
      }
    }
    return new TopicBytes(views, vms, changelogs);
  }

  @Override
  public String toString() {
    return String.format(
        "the views' topics %.1f MiB (the VMs' view %.1f MiB), the changelogs %.1f MiB",
        views / 1048576.0, viewsVms / 1048576.0, changelogs / 1048576.0);
  }
}
