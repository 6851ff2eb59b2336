package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.ResultReport;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent of the VMs without one: reads the request processor's orders ({@code
 * <prefix>-acknowledgements}, read committed), acknowledges each scheduled event through Azure's
 * Maintenance API ({@link MaintenanceApi}) while the order is within its lifetime, and reports each
 * VM's outcome to the request's partition ({@code <prefix>-by-request}) as an agent reports its
 * results.
 *
 * <p>An order is acted on only when the requests view holds its request as the request processor
 * wrote it: audited, admitted by the fleet-wide ledger, for the same event, scheduled event and VMs
 * ({@link OrderChecks}); anything else reaches no Azure.
 *
 * <p>The outcomes and the orders' offsets are committed in one Kafka transaction: an order is
 * answered once. A failure between Azure's answer and the commit acknowledges the event again when
 * the order is read again (Azure takes a second acknowledgement as the first); no call starts, or
 * runs, past the order's lifetime. The ledger counts the event released from the admitted request
 * on, whatever the outcome. A consumer or producer that fails for good is closed and made again.
 */
public final class Acknowledger implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Acknowledger.class);

  /** How long a poll waits for orders. */
  static final Duration POLL = Duration.ofMillis(500);

  /** How long an order waits for this instance's view to show its request. */
  static final Duration VIEW_WAIT = OrderChecks.VIEW_WAIT;

  /** Waits after a failed transaction or a failed client: 0.5 s, doubling, at most 30 s. */
  private static final IntervalFunction BACKOFF =
      IntervalFunction.ofExponentialBackoff(Duration.ofMillis(500), 2.0, Duration.ofSeconds(30));

  private final Supplier<Consumer<String, byte[]>> consumers;
  private final Supplier<Producer<String, ResultReport>> producers;
  private final String ordersTopic;
  private final String resultsTopic;
  private final MaintenanceApi api;
  private final Clock clock;
  private final OrderChecks checks;
  private final BiConsumer<String, Integer> counted;
  private final Thread thread;
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile boolean started;
  private volatile boolean healthy;
  private volatile Consumer<String, byte[]> current;

  /**
   * @param consumers make the consumer of the orders (its own group, read committed, no
   *     auto-commit); a new one after a failure
   * @param producers make the transactional producer of the outcomes
   * @param requests the requests view, by request id
   * @param counted told each committed outcome and how many VMs it was for (metrics)
   */
  public Acknowledger(
      Supplier<Consumer<String, byte[]>> consumers,
      Supplier<Producer<String, ResultReport>> producers,
      String ordersTopic,
      String resultsTopic,
      MaintenanceApi api,
      Clock clock,
      ObjectMapper json,
      Function<String, Optional<RequestView>> requests,
      BiConsumer<String, Integer> counted) {
    this.consumers = consumers;
    this.producers = producers;
    this.ordersTopic = ordersTopic;
    this.resultsTopic = resultsTopic;
    this.api = api;
    this.clock = clock;
    this.checks = new OrderChecks(json, requests);
    this.counted = counted;
    this.thread = DaemonThreads.named("fleet-acknowledger").newThread(this::run);
  }

  public Acknowledger start() {
    started = true;
    thread.start();
    return this;
  }

  /** Whether it is reading orders (false while it makes its clients again after a failure). */
  public boolean healthy() {
    return healthy;
  }

  private void run() {
    int failures = 0;
    while (closing.getCount() > 0) {
      Consumer<String, byte[]> consumer = null;
      Producer<String, ResultReport> producer = null;
      try {
        consumer = consumers.get();
        current = consumer;
        producer = producers.get();
        producer.initTransactions();
        consumer.subscribe(List.of(ordersTopic));
        healthy = true;
        Session s = new Session(consumer, producer);
        int retries = 0;
        while (closing.getCount() > 0) {
          ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
          if (records.isEmpty()) {
            continue;
          }
          Answered a = s.answer(records);
          failures = 0;
          if (a == Answered.FAILED) {
            retries++;
            pause(BACKOFF.apply(retries));
          } else {
            retries = 0;
            if (a == Answered.WAITING) {
              pause(200);
            }
          }
        }
      } catch (WakeupException closed) {
        // close()
      } catch (RuntimeException e) {
        healthy = false;
        failures++;
        LOG.error(
            "the acknowledger failed; making its Kafka clients again (approvals of VMs without an"
                + " agent wait meanwhile)",
            e);
      } finally {
        healthy = false;
        Consumer<String, byte[]> reading = consumer;
        closeQuietly(reading == null ? null : () -> reading.close(Duration.ofSeconds(5)));
        Producer<String, ResultReport> made = producer;
        closeQuietly(made == null ? null : () -> made.close(Duration.ofSeconds(5)));
      }
      if (failures > 0) {
        pause(BACKOFF.apply(failures));
      }
    }
  }

  private static void closeQuietly(Runnable close) {
    if (close == null) {
      return;
    }
    try {
      close.run();
    } catch (RuntimeException e) {
      LOG.warn("acknowledger: closing a Kafka client failed", e);
    }
  }

  /** Waits this long, or until closed. */
  private void pause(long millis) {
    try {
      closing.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closing.countDown();
    }
  }

  /** How a batch of orders ended. */
  enum Answered {
    /** Committed, every order of it. */
    COMMITTED,
    /** Committed up to an order whose request the view does not show yet: read again from it. */
    WAITING,
    /** Nothing kept: read again from its first order. */
    FAILED
  }

  /** A consumer and its producer. */
  final class Session {
    private final Consumer<String, byte[]> consumer;
    private final Producer<String, ResultReport> producer;

    Session(Consumer<String, byte[]> consumer, Producer<String, ResultReport> producer) {
      this.consumer = consumer;
      this.producer = producer;
    }

    /**
     * Answers a batch in one transaction: each partition's orders in turn, up to one whose request
     * the view does not show yet.
     */
    Answered answer(ConsumerRecords<String, byte[]> records) {
      Instant now = clock.instant();
      checks.forgetOld(now);
      Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
      Map<TopicPartition, Long> first = new HashMap<>();
      Map<TopicPartition, Long> waiting = new HashMap<>();
      List<OrderChecks.Fate> fates = new ArrayList<>();
      for (TopicPartition tp : records.partitions()) {
        for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
          first.putIfAbsent(tp, r.offset());
          OrderChecks.Fate f = checks.fate(r, now);
          if (f instanceof OrderChecks.Wait) {
            waiting.put(tp, r.offset());
            break;
          }
          checks.answered(r);
          fates.add(f);
          next.put(tp, new OffsetAndMetadata(r.offset() + 1));
        }
      }
      Map<String, MaintenanceApi.Outcome> outcomes = acknowledge(fates);
      List<Map.Entry<String, Integer>> counts = new ArrayList<>();
      if (!next.isEmpty()) {
        try {
          producer.beginTransaction();
          Instant at = clock.instant();
          for (OrderChecks.Fate f : fates) {
            if (f instanceof OrderChecks.Act a) {
              counts.add(
                  report(
                      a.order(),
                      outcomes.getOrDefault(a.order().resourceId(), OrderChecks.expired(a.order())),
                      at));
            } else if (f instanceof OrderChecks.Answer a) {
              counts.add(report(a.order(), a.outcome(), at));
            }
          }
          producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
          producer.commitTransaction();
        } catch (KafkaException e) {
          LOG.warn(
              "acknowledger: cannot commit the outcomes of {} order(s); reading them again",
              fates.size(),
              e);
          // An abort that fails too (a timed-out commit) ends this session: the clients are made
          // again, and the orders read again from the group's committed offsets.
          producer.abortTransaction();
          seek(first);
          return Answered.FAILED;
        }
      }
      counts.forEach(c -> counted.accept(c.getKey(), c.getValue()));
      seek(waiting);
      return waiting.isEmpty() ? Answered.COMMITTED : Answered.WAITING;
    }

    /** Orders to act on, a call per VM, scale set or availability set, none past its lifetime. */
    private Map<String, MaintenanceApi.Outcome> acknowledge(List<OrderChecks.Fate> fates) {
      Map<String, List<AcknowledgeOrder>> byParent = new LinkedHashMap<>();
      for (OrderChecks.Fate f : fates) {
        if (f instanceof OrderChecks.Act a) {
          byParent
              .computeIfAbsent(
                  MaintenanceApi.parentOf(a.order().resourceId())
                      .toLowerCase(java.util.Locale.ROOT),
                  k -> new ArrayList<>())
              .add(a.order());
        }
      }
      Map<String, MaintenanceApi.Outcome> out = new HashMap<>();
      for (List<AcknowledgeOrder> orders : byParent.values()) {
        if (closing.getCount() == 0) {
          // Closing: nothing more is called, and nothing of the batch is committed.
          throw new WakeupException();
        }
        // Only the orders still within their lifetime now (an earlier call may have taken long);
        // the call ends by the earliest of theirs. The others are answered expired, not sent.
        Instant now = clock.instant();
        List<AcknowledgeOrder> live =
            orders.stream().filter(o -> now.isBefore(o.expiresAt())).toList();
        if (live.isEmpty()) {
          continue;
        }
        Instant deadline =
            live.stream().map(AcknowledgeOrder::expiresAt).min(Instant::compareTo).orElseThrow();
        out.putAll(
            api.acknowledge(
                live.stream().map(AcknowledgeOrder::resourceId).distinct().toList(), deadline));
      }
      return out;
    }

    private void seek(Map<TopicPartition, Long> offsets) {
      Set<TopicPartition> assigned = consumer.assignment();
      offsets.forEach(
          (tp, offset) -> {
            if (assigned.contains(tp)) {
              consumer.seek(tp, offset);
            }
          });
    }

    private Map.Entry<String, Integer> report(
        AcknowledgeOrder o, MaintenanceApi.Outcome outcome, Instant at) {
      for (String name : o.vms()) {
        String key = Acknowledgement.vmKey(name);
        producer.send(
            new ProducerRecord<>(
                resultsTopic,
                o.requestId(),
                new ResultReport(
                    key,
                    ApprovalRequest.commandId(o.requestId(), key),
                    "outcome",
                    outcome.outcome(),
                    outcome.reasonCode(),
                    outcome.reason(),
                    at)));
      }
      LOG.info(
          "approval request {}: event {} through Azure's Maintenance API, for {} VM(s) without an"
              + " agent: {} ({}: {})",
          o.requestId(),
          o.eventId(),
          o.vms().size(),
          outcome.outcome(),
          outcome.reasonCode(),
          outcome.reason());
      return Map.entry(outcome.outcome(), o.vms().size());
    }
  }

  @Override
  public void close() {
    closing.countDown();
    if (!started) {
      return;
    }
    Consumer<String, byte[]> c = current;
    if (c != null) {
      try {
        c.wakeup();
      } catch (RuntimeException closedAlready) {
        // being made again, or closed: the latch ends the loop
      }
    }
    try {
      // A call to Azure in flight ends by MaintenanceApi.CALL_TIMEOUT at the latest.
      thread.join(MaintenanceApi.CALL_TIMEOUT.plusSeconds(10).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
