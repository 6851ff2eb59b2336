package dev.sebridge.fleet.streams;

import dev.sebridge.command.CommandPartitioning;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.processor.StreamPartitioner;

/** Commands go to the partition the target agent reads: murmur2 of the vmId. */
final class AgentPartition implements StreamPartitioner<String, Object> {
  @Override
  public Optional<Set<Integer>> partitions(
      String topic, String vmId, Object value, int partitions) {
    return Optional.of(Set.of(CommandPartitioning.partitionFor(vmId, partitions)));
  }
}
