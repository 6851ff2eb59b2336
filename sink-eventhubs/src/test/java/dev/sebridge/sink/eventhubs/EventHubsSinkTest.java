package dev.sebridge.sink.eventhubs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestHub;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestHub.ReadEvent;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestPeer;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkContext;
import dev.sebridge.spi.SinkException;
import dev.sebridge.testing.EventSinkContractTest;
import dev.sebridge.track.Transition;
import dev.sebridge.track.TransitionType;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared sink contract, and what Event Hubs adds, with the real client over AMQP. */
class EventHubsSinkTest extends EventSinkContractTest {
  static final String HUB = "events";
  static EventHubsTestHub namespace;
  private Map<String, Long> mark;

  @BeforeAll
  static void startNamespace() {
    namespace = EventHubsTestHub.start(Map.of(HUB, 4));
  }

  @AfterAll
  static void stopNamespace() {
    namespace.close();
  }

  static Configuration config(String connectionString) {
    return Configuration.of(Map.of("sink.eventhubs.connection-string", connectionString));
  }

  static EventSink sink(String connectionString) {
    return new EventHubsSinkProvider()
        .create(new SinkContext(config(connectionString), Path.of("."), Clock.systemUTC()));
  }

  @Override
  protected EventSink createSink() {
    mark = namespace.mark(HUB);
    return sink(namespace.connectionString(HUB));
  }

  @Override
  protected List<String> delivered(int expected, Duration timeout) {
    return namespace.read(HUB, mark, expected, timeout).stream().map(ReadEvent::body).toList();
  }

  @Test
  void eachEventIsKeyedByVmIdAndCarriesTheCloudEventsHints() throws Exception {
    List<Envelope> a = envelopes("vm-a", 3);
    List<Envelope> b = envelopes("vm-b", 3);
    List<Envelope> mixed = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      mixed.add(a.get(i));
      mixed.add(b.get(i));
    }
    sink.export(mixed).get(30, TimeUnit.SECONDS);
    List<ReadEvent> got = namespace.read(HUB, mark, 6, Duration.ofSeconds(30));
    assertThat(got).hasSize(6);
    for (ReadEvent r : got) {
      Envelope e = Envelope.fromJson(r.data().getBody());
      assertThat(r.data().getPartitionKey()).isEqualTo(e.partitionKey());
      assertThat(r.data().getContentType())
          .isEqualTo("application/cloudevents+json; charset=utf-8");
      assertThat(r.data().getMessageId()).isEqualTo(e.id());
      assertThat(r.data().getProperties())
          .containsEntry("cloudEvents_specversion", "1.0")
          .containsEntry("cloudEvents_type", e.type())
          .containsEntry("cloudEvents_id", e.id())
          .containsEntry("cloudEvents_source", e.source())
          .containsEntry("cloudEvents_subject", e.subject());
    }
    // One VM, one partition, in order.
    for (List<Envelope> vm : List.of(a, b)) {
      List<ReadEvent> mine =
          got.stream()
              .filter(r -> r.data().getPartitionKey().equals(vm.get(0).partitionKey()))
              .toList();
      assertThat(mine).extracting(ReadEvent::partitionId).containsOnly(mine.get(0).partitionId());
      assertThat(mine)
          .extracting(ReadEvent::body)
          .containsExactlyElementsOf(vm.stream().map(Envelope::bodyAsString).toList());
    }
  }

  /** Envelopes of about 60 KB each, for one VM. */
  static List<Envelope> large(String vmId, int n) throws Exception {
    EnvelopeFactory f = new EnvelopeFactory(new AgentInfo("test", "host"), Clock.systemUTC());
    List<Envelope> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      var event =
          DocumentParser.event(
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .readTree(
                      "{\"EventId\":\"BIG-"
                          + i
                          + "\",\"EventStatus\":\"Scheduled\",\"EventType\":\"Freeze\","
                          + "\"Resources\":[],\"Description\":\""
                          + "d".repeat(60_000)
                          + "\"}"));
      out.add(
          f.scheduledEvent(
              new Transition(TransitionType.SCHEDULED, event, null, i + 2, Instant.now(), false),
              VmIdentity.of(vmId, vmId)));
    }
    return out;
  }

  @Test
  void batchesNeverExceedTheHubsMaximumMessageSize() throws Exception {
    // The peer advertises 256 KB on its links (the emulator 1 MB, as Standard): batches are cut to
    // it.
    int limit = namespace.peer().map(p -> 256 * 1024).orElse(1024 * 1024);
    namespace.peer().ifPresent(p -> p.maxMessageSize(limit));
    try {
      int n = 3 * limit / 60_000 + 1;
      List<Envelope> batch = large("vm-large", n);
      sink.export(batch).get(60, TimeUnit.SECONDS);
      assertThat(namespace.read(HUB, mark, n, Duration.ofSeconds(60)))
          .extracting(ReadEvent::body)
          .containsExactlyElementsOf(batch.stream().map(Envelope::bodyAsString).toList());
      namespace
          .peer()
          .ifPresent(
              p -> {
                List<EventHubsTestPeer.Transfer> t = p.transfers(HUB);
                List<EventHubsTestPeer.Transfer> mine = t.subList(t.size() - 4, t.size());
                assertThat(
                        t.stream().mapToInt(EventHubsTestPeer.Transfer::bytes).max().orElseThrow())
                    .isLessThanOrEqualTo(limit);
                assertThat(mine).allSatisfy(x -> assertThat(x.events()).isGreaterThan(1));
              });
    } finally {
      namespace.peer().ifPresent(p -> p.maxMessageSize(1024 * 1024));
    }
  }

  @Test
  void anOutageFailsRetriablyAndTheSameSinkDeliversOnceTheHubIsBack() throws Exception {
    List<Envelope> first = envelopes("vm-outage", 2);
    sink.export(first.subList(0, 1)).get(30, TimeUnit.SECONDS);
    namespace.takeDown();
    long started = System.nanoTime();
    try {
      assertThatThrownBy(() -> sink.export(first.subList(1, 2)).get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(RetriableSinkException.class)
          // The connection failing (or timing out), not the client's own retry logic.
          .rootCause()
          .isInstanceOfAny(
              com.azure.core.amqp.exception.AmqpException.class,
              java.util.concurrent.TimeoutException.class);
      // Within the outbox's 30 s export timeout, so the outbox sees the failure, not a timeout.
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    } finally {
      namespace.bringBack();
    }
    // As the outbox does: the same batch again, on the same sink.
    sink.export(first.subList(1, 2)).get(60, TimeUnit.SECONDS);
    List<String> got = delivered(2, Duration.ofSeconds(30));
    assertThat(got).containsExactlyElementsOf(first.stream().map(Envelope::bodyAsString).toList());
  }

  @Test
  void aWrongKeyIsARefusalThatNamesNoSecret() throws Exception {
    String wrong = namespace.connectionString(HUB).replace("SAS_KEY_VALUE", "d3Jvbmcta2V5LXZhbHVl");
    EventSink bad = sink(wrong);
    try {
      assertThatThrownBy(() -> bad.export(envelopes("vm-auth", 1)).get(60, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(SinkException.class)
          .isNotInstanceOf(RetriableSinkException.class)
          .message()
          .doesNotContain("d3Jvbmcta2V5LXZhbHVl");
    } finally {
      bad.close();
    }
  }
}
