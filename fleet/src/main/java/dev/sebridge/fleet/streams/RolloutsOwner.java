package dev.sebridge.fleet.streams;

import java.util.Collection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;

/**
 * Whether this instance runs the rollouts task now: the one active task of the single-partition
 * rollouts topic, which Kafka Streams gives to one instance of the application at a time and moves
 * on a failover. What only one instance may do rides on it (writing Azure's inventory), so that two
 * instances' reads of Azure taken at different moments never undo each other's writes.
 */
public final class RolloutsOwner {
  private final KafkaStreams streams;
  private final TopicPartition rollouts;

  public RolloutsOwner(KafkaStreams streams, String rolloutsTopic) {
    this.streams = streams;
    this.rollouts = new TopicPartition(rolloutsTopic, 0);
  }

  /**
   * True while this instance is RUNNING and one of its stream threads has the rollouts task active.
   * Not while it rebalances: a thread's list of active tasks is brought up to date only when it
   * runs again, so an instance that just lost the task would still list it.
   */
  public boolean now() {
    try {
      return streams.state() == KafkaStreams.State.RUNNING
          && runs(streams.metadataForLocalThreads(), rollouts);
    } catch (RuntimeException stoppedOrStarting) {
      return false; // not running: someone else's, or no one's for now
    }
  }

  /** Whether these threads' active tasks read this partition. */
  static boolean runs(Collection<ThreadMetadata> threads, TopicPartition partition) {
    return threads.stream()
        .flatMap(t -> t.activeTasks().stream())
        .anyMatch(t -> t.topicPartitions().contains(partition));
  }
}
