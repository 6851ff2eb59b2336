package dev.sebridge.fleet.agentless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.simulator.azure.MaintenanceEndpoint;
import dev.sebridge.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The acknowledger's transactions and checks, failures injected deterministically: a commit that
 * fails keeps nothing and the batch is answered once by the next commit; no call starts past an
 * order's lifetime; an order the requests view does not hold as audited and admitted is never sent;
 * clients that fail for good are made again. (The wire to Kafka and Azure: {@code
 * AcknowledgeServiceTest}.)
 */
class AcknowledgerTest {
  static final TopicPartition ORDERS = new TopicPartition("orders", 0);
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  final MutableClock clock = new MutableClock(T0);
  MaintenanceEndpoint azure;
  MockConsumer<String, byte[]> consumer;
  MockProducer<String, ResultReport> producer;
  final List<String> counted = new CopyOnWriteArrayList<>();
  final Map<String, RequestView> views = new ConcurrentHashMap<>();
  final Map<String, EventView> events = new ConcurrentHashMap<>();
  volatile boolean eventsDown;
  Acknowledger acknowledger;
  OrderSession session;

  @BeforeEach
  void start() throws Exception {
    azure = new MaintenanceEndpoint();
    consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(ORDERS));
    consumer.updateBeginningOffsets(Map.of(ORDERS, 0L));
    producer = producer();
    producer.initTransactions();
    acknowledger = acknowledger(() -> consumer, () -> producer);
    session = acknowledger.session(consumer, producer);
  }

  static MockProducer<String, ResultReport> producer() {
    return new MockProducer<>(
        true, null, new StringSerializer(), new JsonSerde<>(ResultReport.class).serializer());
  }

  Acknowledger acknowledger(
      java.util.function.Supplier<org.apache.kafka.clients.consumer.Consumer<String, byte[]>> c,
      java.util.function.Supplier<org.apache.kafka.clients.producer.Producer<String, ResultReport>>
          p)
      throws java.io.IOException {
    return new Acknowledger(
        c,
        p,
        "orders",
        "results",
        new MaintenanceApi(
            azure.endpoint(),
            MaintenanceApi.DEFAULT_API_VERSION,
            dev.sebridge.fleet.testing.AzureAccess.credential(),
            dev.sebridge.fleet.testing.AzureAccess.httpClient(),
            Duration.ofMillis(10),
            clock),
        clock,
        JsonSerde.JSON,
        id -> Optional.ofNullable(views.get(id)),
        id -> {
          if (eventsDown) {
            throw new IllegalStateException("the stores are rebalancing");
          }
          return Optional.ofNullable(events.get(id));
        },
        (outcome, vms) -> counted.add(outcome + " " + vms));
  }

  @AfterEach
  void stop() {
    acknowledger.close();
    azure.close();
  }

  /** An order of an admitted request, and the request in the view as the processor wrote it. */
  AcknowledgeOrder admitted(String requestId, String eventId, String resourceId, String... vms) {
    ApprovalRequest r =
        new ApprovalRequest(
                requestId,
                eventId,
                List.of(),
                "patch",
                "alice",
                clock.instant(),
                "api",
                null,
                null,
                null,
                new Acknowledgement(resourceId, List.of(vms)))
            .admit();
    views.put(requestId, new RequestView(r, clock.instant(), Map.of()));
    return order(requestId, eventId, resourceId, vms);
  }

  AcknowledgeOrder order(String requestId, String eventId, String resourceId, String... vms) {
    return new AcknowledgeOrder(
        requestId,
        eventId,
        resourceId,
        List.of(vms),
        "alice",
        clock.instant(),
        clock.instant().plusSeconds(300));
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
    ConsumerRecords<String, byte[]> records = batch(admitted("req-1", "E1", id, "db-1", "db-2"));
    producer.commitTransactionException = new KafkaException("the broker went away");
    assertThat(session.answer(records)).isEqualTo(OrderSession.Answered.FAILED);
    assertThat(producer.transactionAborted()).isTrue();
    assertThat(producer.history()).as("aborted: nothing kept").isEmpty();
    assertThat(producer.consumerGroupOffsetsHistory()).isEmpty();
    assertThat(counted).as("counted once committed, not before").isEmpty();
    assertThat(consumer.position(ORDERS))
        .as("read again from the batch's first order")
        .isEqualTo(5);

    producer.commitTransactionException = null;
    assertThat(session.answer(records)).isEqualTo(OrderSession.Answered.COMMITTED);
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
    assertThat(counted).containsExactly("accepted 2");
    // Acknowledged again after the failed commit: Azure takes the second as the first.
    assertThat(azure.calls()).hasSize(2);
    assertThat(azure.started()).containsExactly("e1");
  }

  /**
   * A blank name in the event's Resources (as a report gave them) is no VM's, and the fleet leaves
   * it out of what it counts: the order is sent. Before, the check took it for a VM the request did
   * not count and refused the order, again at every release.
   */
  @Test
  void aBlankNameInTheEventsResourcesDoesNotStopAnOrder() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E1");
    azure.schedule(id);
    AcknowledgeOrder order = counting(admitted("req-1", "E1", id, "db-1", "db-2"), "db-1", "db-2");
    events.put("E1", event("E1", "db-1", "db-2", " "));
    assertThat(session.answer(batch(order))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(r -> r.value().outcome())
        .containsExactly("accepted", "accepted");
    assertThat(azure.started()).containsExactly("e1");
  }

  /**
   * The fleet released E1 counting db-1 and db-2; by the time the order is read, the events view
   * shows Azure listing db-3 in it too. The Maintenance API takes no list of VMs to hold Azure to:
   * acknowledged, the event would release db-3 too, counted nowhere. The order is not sent, and its
   * VMs are answered rejected as resources-changed, as an agent answers, so the rollout releases
   * the event again counting db-3. An order whose event the view lists no more than counted is
   * sent; one whose event the views cannot be read for waits.
   */
  @Test
  void anOrderWhoseEventTheViewShowsListingAVmTheFleetDidNotCountIsNotSent() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E1");
    azure.schedule(id);
    AcknowledgeOrder grown = counting(admitted("req-1", "E1", id, "db-1", "db-2"), "db-1", "DB-2");
    events.put("E1", event("E1", "db-1", "db-2", "db-3"));
    assertThat(session.answer(batch(grown))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(
            r -> r.value().vmId() + " " + r.value().outcome() + " " + r.value().reasonCode())
        .containsExactly(
            "name:db-1 rejected resources-changed", "name:db-2 rejected resources-changed");
    assertThat(producer.history().get(0).value().reason()).contains("db-3");
    assertThat(azure.calls()).as("nothing sent to Azure").isEmpty();

    producer.clear();
    AcknowledgeOrder same = counting(admitted("req-2", "E1", id, "db-1", "db-2"), "db-1", "DB-2");
    events.put("E1", event("E1", "db-1", "db-2"));
    assertThat(session.answer(batch(same))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(r -> r.value().outcome())
        .containsExactly("accepted", "accepted");
    assertThat(azure.started()).containsExactly("e1");

    // Azure's central delivery lists db-4, which no agent's report lists yet: not sent either.
    producer.clear();
    AcknowledgeOrder central = counting(admitted("req-4", "E1", id, "db-1"), "db-1", "db-2");
    events.put(
        "E1",
        event("E1", "db-1", "db-2")
            .withCentral(
                new dev.sebridge.fleet.model.CentralReport(
                    AzureEventStatus.SCHEDULED, null, List.of("db-1", "db-2", "db-4"), T0, T0),
                null));
    assertThat(session.answer(batch(central))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(r -> r.value().outcome() + " " + r.value().reasonCode())
        .containsExactly("rejected resources-changed");
    assertThat(azure.calls()).hasSize(1);

    producer.clear();
    eventsDown = true;
    AcknowledgeOrder unread = counting(admitted("req-3", "E1", id, "db-1"), "db-1");
    session.answer(batch(unread));
    assertThat(producer.history()).as("waits for the views").isEmpty();
    assertThat(azure.calls()).hasSize(1);
  }

  /**
   * An order acted on whose commit failed is read again: acted on again (Azure takes a second
   * acknowledgement as the first) though the view now shows the event listing a VM the request did
   * not count; answered "not sent" instead, its rollout would take the event for not released.
   */
  @Test
  void anOrderActedOnIsActedOnAgainWhenReadAgainAfterAFailedCommit() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E1");
    azure.schedule(id);
    events.put("E1", event("E1", "db-1"));
    ConsumerRecords<String, byte[]> records =
        batch(counting(admitted("req-1", "E1", id, "db-1"), "db-1"));
    producer.commitTransactionException = new KafkaException("the broker went away");
    assertThat(session.answer(records)).isEqualTo(OrderSession.Answered.FAILED);
    producer.commitTransactionException = null;
    events.put("E1", event("E1", "db-1", "db-3"));
    assertThat(session.answer(records)).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(r -> r.value().outcome() + " " + r.value().reasonCode())
        .containsExactly("accepted acknowledged");
    assertThat(azure.calls()).hasSize(2);
  }

  private static EventView event(String eventId, String... resources) {
    return new EventView(
        eventId,
        "Reboot",
        "Platform",
        T0.plusSeconds(900),
        -1,
        "",
        List.of(resources),
        T0,
        T0,
        null,
        Map.of(),
        null,
        null,
        T0);
  }

  /** The order's request as the ledger admitted it, counting these names. */
  private AcknowledgeOrder counting(AcknowledgeOrder o, String... names) {
    RequestView v = views.get(o.requestId());
    views.put(
        o.requestId(),
        new RequestView(v.request().admit(List.of(names)), v.commandsSentAt(), v.vms()));
    return o;
  }

  /**
   * Two orders of two VMs: the first call takes so long (Azure asks to wait) that the second
   * order's lifetime ends meanwhile; the second is not sent.
   */
  @Test
  void noCallStartsAfterItsOrdersLifetimeEvenWhenAnEarlierCallTookLong() throws Exception {
    String first = MaintenanceEndpoint.vmEventId("db-1", "E1");
    String second = MaintenanceEndpoint.vmEventId("db-2", "E2");
    azure.schedule(first);
    azure.schedule(second);
    azure.onStart(id -> clock.advance(Duration.ofMinutes(6)));
    assertThat(
            session.answer(
                batch(
                    admitted("req-1", "E1", first, "db-1"),
                    admitted("req-2", "E2", second, "db-2"))))
        .isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(r -> r.key() + " " + r.value().outcome() + " " + r.value().reasonCode())
        .containsExactly("req-1 accepted acknowledged", "req-2 failed expired");
    assertThat(azure.started()).containsExactly("e1");
  }

  @Test
  void anOrderPastItsLifetimeIsAnsweredExpiredWithoutACall() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E2");
    azure.schedule(id);
    AcknowledgeOrder o = admitted("req-2", "E2", id, "db-1");
    clock.advance(Duration.ofMinutes(6));
    assertThat(session.answer(batch(o))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history().get(0).value().reasonCode()).isEqualTo("expired");
    assertThat(azure.calls()).isEmpty();
    assertThat(counted).containsExactly("failed 1");
  }

  /**
   * Nothing is sent for an order the requests view does not hold as audited and admitted, and
   * nothing is written under that request's keys: one whose scheduled event is another than the
   * request's, one of a refused request. An order whose request the view does not show yet waits a
   * minute from when it was first read, is acted on when the view shows it, and is refused after
   * the minute.
   */
  @Test
  void anOrderThatNoAdmittedRequestStandsBehindIsNeverSent() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E3");
    String other = MaintenanceEndpoint.vmEventId("db-9", "E3");
    azure.schedule(id);
    admitted("req-3", "E3", id, "db-1");
    AcknowledgeOrder switched = order("req-3", "E3", other, "db-9");
    ApprovalRequest refused = views.get("req-3").request().refused("a rollout holds it");
    views.put(
        "req-4",
        new RequestView(
            new ApprovalRequest(
                "req-4",
                refused.eventId(),
                List.of(),
                "x",
                "alice",
                T0,
                "api",
                null,
                "held",
                null,
                refused.acknowledge()),
            null,
            Map.of()));
    AcknowledgeOrder ofRefused = order("req-4", "E3", id, "db-1");
    assertThat(session.answer(batch(switched, ofRefused)))
        .isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history()).as("nothing written under their keys").isEmpty();
    assertThat(producer.consumerGroupOffsetsHistory()).hasSize(1);

    // Issued long ago, first read now: it waits a minute from now.
    clock.advance(Duration.ofMinutes(2));
    AcknowledgeOrder unseen =
        new AcknowledgeOrder(
            "req-5", "E3", id, List.of("db-1"), "alice", T0, clock.instant().plusSeconds(300));
    assertThat(session.answer(batch(unseen))).isEqualTo(OrderSession.Answered.WAITING);
    assertThat(consumer.position(ORDERS)).isEqualTo(5);
    clock.advance(Duration.ofSeconds(30));
    assertThat(session.answer(batch(unseen))).isEqualTo(OrderSession.Answered.WAITING);
    clock.advance(Acknowledger.VIEW_WAIT);
    assertThat(session.answer(batch(unseen))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history().get(0).value().reasonCode()).isEqualTo("not-admitted");
    assertThat(azure.calls()).isEmpty();

    // One the view shows after a wait is acted on.
    AcknowledgeOrder late =
        new AcknowledgeOrder(
            "req-6",
            "E3",
            id,
            List.of("db-1"),
            "alice",
            clock.instant(),
            clock.instant().plusSeconds(300));
    assertThat(session.answer(batch(late))).isEqualTo(OrderSession.Answered.WAITING);
    admitted("req-6", "E3", id, "db-1");
    assertThat(session.answer(batch(late))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history().get(1).value().outcome()).isEqualTo("accepted");
  }

  /**
   * Orders of one scale set in a batch, after a call that took long: the one whose lifetime ended
   * meanwhile is answered expired and not sent; the other is sent, bounded by its own lifetime.
   */
  @Test
  void eachOrderOfABatchIsSentOnlyWithinItsOwnLifetime() throws Exception {
    String first = MaintenanceEndpoint.vmEventId("db-1", "E7");
    String soon = MaintenanceEndpoint.vmEventId("db-2", "E8");
    String later = MaintenanceEndpoint.vmEventId("db-2", "E9");
    azure.schedule(first);
    azure.schedule(soon);
    azure.schedule(later);
    azure.onStart(
        id -> {
          if (id.equalsIgnoreCase("E7")) {
            clock.advance(Duration.ofMinutes(2));
          }
        });
    AcknowledgeOrder a = admitted("req-7", "E7", first, "db-1");
    AcknowledgeOrder b = admitted("req-8", "E8", soon, "db-2");
    b =
        new AcknowledgeOrder(
            b.requestId(), b.eventId(), b.resourceId(), b.vms(), "alice", T0, T0.plusSeconds(60));
    AcknowledgeOrder c = admitted("req-9", "E9", later, "db-2");
    assertThat(session.answer(batch(a, b, c))).isEqualTo(OrderSession.Answered.COMMITTED);
    assertThat(producer.history())
        .extracting(r -> r.key() + " " + r.value().outcome() + " " + r.value().reasonCode())
        .containsExactly(
            "req-7 accepted acknowledged", "req-8 failed expired", "req-9 accepted acknowledged");
    assertThat(azure.started()).containsExactlyInAnyOrder("e7", "e9");
  }

  /** A consumer that fails for good is closed, and the acknowledger goes on with a new one. */
  @Test
  void clientsThatFailAreMadeAgainAndOrdersAreStillAnswered() throws Exception {
    String id = MaintenanceEndpoint.vmEventId("db-1", "E6");
    azure.schedule(id);
    AcknowledgeOrder o = admitted("req-6", "E6", id, "db-1");
    AtomicInteger made = new AtomicInteger();
    List<MockProducer<String, ResultReport>> producers = new CopyOnWriteArrayList<>();
    acknowledger.close();
    acknowledger =
        acknowledger(
            () -> {
              MockConsumer<String, byte[]> c = new MockConsumer<>("earliest");
              if (made.incrementAndGet() == 1) {
                c.setPollException(new KafkaException("the first consumer breaks"));
              } else {
                c.schedulePollTask(
                    () -> {
                      c.rebalance(List.of(ORDERS));
                      c.updateBeginningOffsets(Map.of(ORDERS, 0L));
                      try {
                        c.addRecord(
                            new ConsumerRecord<>(
                                "orders", 0, 0, "req-6", JsonSerde.JSON.writeValueAsBytes(o)));
                      } catch (Exception e) {
                        throw new IllegalStateException(e);
                      }
                    });
              }
              return c;
            },
            () -> {
              MockProducer<String, ResultReport> p = producer();
              producers.add(p);
              return p;
            });
    acknowledger.start();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> producers.stream().anyMatch(p -> !p.history().isEmpty()));
    assertThat(made.get()).isEqualTo(2);
    assertThat(producers.get(0).closed()).isTrue();
    assertThat(azure.started()).containsExactly("e6");
  }
}
