package dev.sebridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.testing.EventSinkContractTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Per key, the sink sends a record only once the previous one is acknowledged, so a failed record
 * can never be overtaken on the topic by a later one of the same VM.
 */
class KafkaSinkOrderingTest {
  final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
  final KafkaSink sink = new KafkaSink("t", () -> producer);

  @Test
  void sendsTheNextRecordOfAKeyOnlyAfterTheAckOfThePrevious() {
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 3);
    CompletableFuture<Void> f = sink.export(envs);
    assertThat(producer.history()).hasSize(1);
    producer.completeNext();
    assertThat(producer.history()).hasSize(2);
    producer.completeNext();
    producer.completeNext();
    assertThat(f).isCompleted();
    assertThat(producer.history()).extracting(r -> new String(r.key())).containsOnly("vm-1");
  }

  @Test
  void aFailedRecordStopsTheRestOfItsKey() {
    CompletableFuture<Void> f = sink.export(EventSinkContractTest.envelopes("vm-1", 3));
    producer.errorNext(new TimeoutException("expired"));
    assertThat(f).isCompletedExceptionally();
    assertThat(producer.history()).hasSize(1);
  }

  @Test
  void differentKeysProceedInParallel() {
    List<Envelope> envs = new ArrayList<>(EventSinkContractTest.envelopes("vm-a", 2));
    envs.addAll(EventSinkContractTest.envelopes("vm-b", 2));
    sink.export(envs);
    assertThat(producer.history())
        .extracting(r -> new String(r.key()))
        .containsExactly("vm-a", "vm-b");
  }
}
