package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.ReplayGate;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link ReplayGate} from the brokers: when the rollouts task starts, the end of the rollouts topic
 * (its high watermark: every record written, transaction markers included) is the mark; the task
 * has caught up once the application's committed offset reaches it. (Not the last stable offset: a
 * commit marker is written after the producer's commit returns, so that one can still stand before
 * records already written.) Kafka Streams commits (with exactly-once, every 100 ms) only what it
 * processed, so the committed offset is this task's own progress; an application that already stood
 * at the end when the task started is caught up at once, and a failover to an instance of the same
 * application replays nothing.
 */
final class RolloutsReplayGate implements ReplayGate {
  private static final long TIMEOUT_MS = 5_000;

  private final Admin admin;
  private final String applicationId;
  private final TopicPartition partition;

  RolloutsReplayGate(Admin admin, String applicationId, String rolloutsTopic) {
    this.admin = admin;
    this.applicationId = applicationId;
    this.partition = new TopicPartition(rolloutsTopic, 0);
  }

  @Override
  public Check start() {
    return new Check() {
      private long mark = -1;

      @Override
      public boolean caughtUp() {
        if (mark < 0) {
          mark = end();
        }
        return committed() >= mark;
      }
    };
  }

  private long end() {
    return offset(OffsetSpec.latest());
  }

  private long offset(OffsetSpec spec) {
    return get(admin
            .listOffsets(
                Map.of(partition, spec), new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
            .partitionResult(partition))
        .offset();
  }

  /**
   * Where the application's consumer stands: its committed offset, or without one the log's start
   * (where {@code auto.offset.reset=earliest} begins: records retention removed are no replay).
   */
  private long committed() {
    OffsetAndMetadata o =
        get(admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata())
            .get(partition);
    return o == null ? offset(OffsetSpec.earliest()) : o.offset();
  }

  private static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) {
    try {
      return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking the brokers", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the rollouts topic's offsets: " + e, e);
    }
  }
}
