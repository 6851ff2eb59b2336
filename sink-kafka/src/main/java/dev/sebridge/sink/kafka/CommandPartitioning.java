package dev.sebridge.sink.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Which partition of the commands topic holds a VM's commands: murmur2 of the vmId, as Kafka's
 * default partitioner places a record keyed by it. {@code sebridge approve} and the agent both use
 * this, so an agent reads one partition only, with no consumer group, and 10,000 agents can share
 * one topic.
 */
public final class CommandPartitioning {
  private CommandPartitioning() {}

  public static int partitionFor(String vmId, int partitions) {
    if (partitions <= 0) {
      throw new IllegalArgumentException("a topic has at least one partition");
    }
    return Utils.toPositive(Utils.murmur2(vmId.getBytes(StandardCharsets.UTF_8))) % partitions;
  }
}
