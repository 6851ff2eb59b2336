package dev.sebridge.sink.eventhubs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.util.IterableStream;
import com.azure.messaging.eventhubs.EventData;
import com.azure.messaging.eventhubs.EventDataBatch;
import com.azure.messaging.eventhubs.EventHubClientBuilder;
import com.azure.messaging.eventhubs.EventHubConsumerClient;
import com.azure.messaging.eventhubs.EventHubProducerClient;
import com.azure.messaging.eventhubs.models.CreateBatchOptions;
import com.azure.messaging.eventhubs.models.EventPosition;
import com.azure.messaging.eventhubs.models.PartitionEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The real client against the peer: what the sink and source tests rely on. */
class EventHubsTestPeerTest {
  private final EventHubsTestPeer peer = new EventHubsTestPeer().hub("events", 4).start();

  @AfterEach
  void stop() {
    peer.close();
  }

  private EventHubClientBuilder builder(String connectionString) {
    return new EventHubClientBuilder()
        .connectionString(connectionString)
        .retryOptions(new AmqpRetryOptions().setMaxRetries(1).setTryTimeout(Duration.ofSeconds(5)));
  }

  @Test
  void aBatchWithAPartitionKeyIsReadBackWithTheServiceAnnotations() {
    try (EventHubProducerClient producer =
        builder(peer.connectionString("events")).buildProducerClient()) {
      assertThat(producer.getPartitionIds()).containsExactly("0", "1", "2", "3");
      EventDataBatch batch = producer.createBatch(new CreateBatchOptions().setPartitionKey("vm-1"));
      for (int i = 0; i < 3; i++) {
        EventData e = new EventData(("event " + i).getBytes(StandardCharsets.UTF_8));
        e.getProperties().put("n", i);
        assertThat(batch.tryAdd(e)).isTrue();
      }
      producer.send(batch);
    }
    List<StoredEvent> stored = peer.events("events");
    assertThat(stored).hasSize(3);
    String partition = stored.get(0).partitionId();
    assertThat(stored).allSatisfy(s -> assertThat(s.partitionId()).isEqualTo(partition));
    assertThat(stored.get(2).properties()).containsEntry("n", 2);

    try (EventHubConsumerClient consumer =
        builder(peer.connectionString("events"))
            .consumerGroup(EventHubClientBuilder.DEFAULT_CONSUMER_GROUP_NAME)
            .buildConsumerClient()) {
      assertThat(consumer.getPartitionProperties(partition).getLastEnqueuedSequenceNumber())
          .isEqualTo(2);
      List<PartitionEvent> read = new ArrayList<>();
      IterableStream<PartitionEvent> events =
          consumer.receiveFromPartition(
              partition, 3, EventPosition.earliest(), Duration.ofSeconds(10));
      events.forEach(read::add);
      assertThat(read).hasSize(3);
      assertThat(read.get(1).getData().getBodyAsString()).isEqualTo("event 1");
      assertThat(read.get(1).getData().getPartitionKey()).isEqualTo("vm-1");
      assertThat(read.get(1).getData().getSequenceNumber()).isEqualTo(1);
      assertThat(read.get(1).getData().getEnqueuedTime()).isNotNull();
      String offsetOfFirst = read.get(0).getData().getOffsetString();
      List<PartitionEvent> after = new ArrayList<>();
      consumer
          .receiveFromPartition(
              partition, 5, EventPosition.fromOffsetString(offsetOfFirst), Duration.ofSeconds(3))
          .forEach(after::add);
      assertThat(after).extracting(e -> e.getData().getSequenceNumber()).containsExactly(1L, 2L);
      List<PartitionEvent> fromSeq = new ArrayList<>();
      consumer
          .receiveFromPartition(
              partition, 5, EventPosition.fromSequenceNumber(2, true), Duration.ofSeconds(3))
          .forEach(fromSeq::add);
      assertThat(fromSeq).extracting(e -> e.getData().getSequenceNumber()).containsExactly(2L);
    }
  }

  @Test
  void aWrongKeyIsRefused() {
    String bad = peer.connectionString("events").replace(EventHubsTestPeer.KEY, "bm90LXRoZS1rZXk=");
    try (EventHubProducerClient producer = builder(bad).buildProducerClient()) {
      assertThatThrownBy(() -> producer.send(List.of(new EventData("x"))))
          .hasMessageContaining("signature");
    }
    assertThat(peer.events("events")).isEmpty();
  }
}
