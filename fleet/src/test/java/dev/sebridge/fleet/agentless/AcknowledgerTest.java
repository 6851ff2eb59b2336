package dev.sebridge.fleet.agentless;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.fleet.testing.MaintenanceEndpoint;
import dev.sebridge.fleet.testing.ResourceGraphEndpoint;
import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The acknowledger's transaction, with a commit that fails injected deterministically: nothing of
 * the batch is kept, the batch is read again from its first offset, and the next commit writes each
 * VM's outcome once, with the offsets. (The wire: {@code AcknowledgeServiceTest}.)
 */
class AcknowledgerTest {
  static final TopicPartition ORDERS = new TopicPartition("orders", 0);
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  MaintenanceEndpoint azure;
  MockConsumer<String, byte[]> consumer;
  MockProducer<String, ResultReport> producer;
  final List<String> counted = new ArrayList<>();
  Acknowledger acknowledger;

  @BeforeEach
  void start() throws Exception {
    azure = new MaintenanceEndpoint();
    consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(ORDERS));
    consumer.updateBeginningOffsets(Map.of(ORDERS, 0L));
    producer =
        new MockProducer<>(
            true, null, new StringSerializer(), new JsonSerde<>(ResultReport.class).serializer());
    producer.initTransactions();
    acknowledger =
        new Acknowledger(
            consumer,
            producer,
            "orders",
            "results",
            new MaintenanceApi(
                azure.endpoint(),
                MaintenanceApi.DEFAULT_API_VERSION,
                ResourceGraphEndpoint.credential(),
                ResourceGraphEndpoint.httpClient(),
                Duration.ofMillis(10)),
            new MutableClock(T0),
            JsonSerde.JSON,
            (outcome, vms) -> counted.add(outcome + " " + vms));
  }

  @AfterEach
  void stop() {
    acknowledger.close();
    azure.close();
  }

  ConsumerRecords<String, byte[]> batch(AcknowledgeOrder... orders) throws Exception {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    long offset = 5;
    for (AcknowledgeOrder o : orders) {
      records.add(
          new ConsumerRecord<>(
              "orders", 0, offset++, o.requestId(), JsonSerde.JSON.writeValueAsBytes(o)));
    }
    return new ConsumerRecords<>(Map.of(ORDERS, records));
  }

  @Test
  void aCommitThatFailsKeepsNothingAndTheBatchIsAnsweredOnceByTheNextCommit() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E1");
    azure.schedule(id);
    ConsumerRecords<String, byte[]> records =
        batch(
            new AcknowledgeOrder(
                "req-1", "E1", id, List.of("db-1", "db-2"), "alice", T0, T0.plusSeconds(300)));
    producer.commitTransactionException = new KafkaException("the broker went away");
    assertThat(acknowledger.answer(records)).isFalse();
    assertThat(producer.transactionAborted()).isTrue();
    assertThat(producer.history()).as("aborted: nothing kept").isEmpty();
    assertThat(producer.consumerGroupOffsetsHistory()).isEmpty();
    assertThat(consumer.position(ORDERS))
        .as("read again from the batch's first order")
        .isEqualTo(5);

    producer.commitTransactionException = null;
    assertThat(acknowledger.answer(records)).isTrue();
    assertThat(producer.history())
        .extracting(r -> r.key() + " " + r.value().vmId() + " " + r.value().outcome())
        .containsExactly("req-1 name:db-1 accepted", "req-1 name:db-2 accepted");
    assertThat(producer.history().get(0).value().commandId()).isEqualTo("fleet:req-1:name:db-1");
    assertThat(producer.consumerGroupOffsetsHistory()).hasSize(1);
    assertThat(
            producer
                .consumerGroupOffsetsHistory()
                .get(0)
                .values()
                .iterator()
                .next()
                .get(ORDERS)
                .offset())
        .isEqualTo(6);
    // Acknowledged again after the failed commit: Azure takes the second as the first.
    assertThat(azure.calls()).hasSize(2);
    assertThat(azure.started()).containsExactly("e1");
  }

  @Test
  void anOrderPastItsLifetimeIsAnsweredExpiredWithoutACall() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E2");
    azure.schedule(id);
    assertThat(
            acknowledger.answer(
                batch(
                    new AcknowledgeOrder(
                        "req-2",
                        "E2",
                        id,
                        List.of("db-1"),
                        "alice",
                        T0.minusSeconds(600),
                        T0.minusSeconds(1)))))
        .isTrue();
    assertThat(producer.history().get(0).value().reasonCode()).isEqualTo("expired");
    assertThat(azure.calls()).isEmpty();
    assertThat(counted).containsExactly("failed 1");
  }
}
