package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.ResultReport;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
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
 * <prefix>-acknowledgements}, read committed: only audited, admitted requests' orders),
 * acknowledges each scheduled event through Azure's Maintenance API ({@link MaintenanceApi}) while
 * the order is within its lifetime, and reports each VM's outcome to the request's partition
 * ({@code <prefix>-by-request}) as an agent reports its results.
 *
 * <p>The outcomes and the orders' offsets are committed in one Kafka transaction: an order is
 * answered once. A failure between Azure's answer and the commit (a crash, a broker away)
 * acknowledges the event again when the order is read again; Azure takes a second acknowledgement
 * as the first ("may start"), and an order past its lifetime is not sent again ({@code expired}).
 * The ledger counts the event released from the audited request on, whatever the outcome.
 */
public final class Acknowledger implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Acknowledger.class);

  /** How long a poll waits for orders. */
  static final Duration POLL = Duration.ofMillis(500);

  /** Waits after a failed transaction: 0.5 s, doubling, at most 30 s. */
  private static final IntervalFunction BACKOFF =
      IntervalFunction.ofExponentialBackoff(Duration.ofMillis(500), 2.0, Duration.ofSeconds(30));

  private final Consumer<String, byte[]> consumer;
  private final Producer<String, ResultReport> producer;
  private final String ordersTopic;
  private final String resultsTopic;
  private final MaintenanceApi api;
  private final Clock clock;
  private final ObjectMapper json;
  private final BiConsumer<String, Integer> counted;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean started;

  /**
   * @param consumer reads the orders (its own group, read committed, no auto-commit)
   * @param producer transactional: writes the outcomes
   * @param counted told each outcome and how many VMs it was for (metrics)
   */
  public Acknowledger(
      Consumer<String, byte[]> consumer,
      Producer<String, ResultReport> producer,
      String ordersTopic,
      String resultsTopic,
      MaintenanceApi api,
      Clock clock,
      ObjectMapper json,
      BiConsumer<String, Integer> counted) {
    this.consumer = consumer;
    this.producer = producer;
    this.ordersTopic = ordersTopic;
    this.resultsTopic = resultsTopic;
    this.api = api;
    this.clock = clock;
    this.json = json;
    this.counted = counted;
    this.thread = DaemonThreads.named("fleet-acknowledger").newThread(this::run);
  }

  public Acknowledger start() {
    started = true;
    thread.start();
    return this;
  }

  private void run() {
    try {
      producer.initTransactions();
      consumer.subscribe(List.of(ordersTopic));
      int failures = 0;
      while (running) {
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
        if (records.isEmpty()) {
          continue;
        }
        if (answer(records)) {
          failures = 0;
        } else {
          failures++;
          pauseFor(BACKOFF.apply(failures));
        }
      }
    } catch (WakeupException closing) {
      // close()
    } catch (RuntimeException e) {
      LOG.error("the acknowledger stopped: approvals of VMs without an agent wait", e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
      producer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * Answers one batch of orders in one transaction: true when committed. Otherwise nothing of it is
   * kept, and the consumer reads the batch again.
   */
  boolean answer(ConsumerRecords<String, byte[]> records) {
    List<AcknowledgeOrder> orders = new ArrayList<>();
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    Map<TopicPartition, Long> first = new HashMap<>();
    for (ConsumerRecord<String, byte[]> r : records) {
      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
      first.putIfAbsent(tp, r.offset());
      next.put(tp, new OffsetAndMetadata(r.offset() + 1));
      AcknowledgeOrder o = read(r);
      if (o != null) {
        orders.add(o);
      }
    }
    Instant now = clock.instant();
    Set<String> live = new LinkedHashSet<>();
    orders.stream().filter(o -> !now.isAfter(o.expiresAt())).forEach(o -> live.add(o.resourceId()));
    Map<String, MaintenanceApi.Outcome> outcomes =
        live.isEmpty() ? Map.of() : api.acknowledge(live);
    try {
      producer.beginTransaction();
      for (AcknowledgeOrder o : orders) {
        MaintenanceApi.Outcome outcome =
            now.isAfter(o.expiresAt())
                ? MaintenanceApi.Outcome.failed(
                    "expired",
                    "the acknowledgement was not sent: its order expired at "
                        + o.expiresAt()
                        + ", before the acknowledger read it")
                : outcomes.get(o.resourceId());
        report(o, outcome, now);
      }
      producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
      producer.commitTransaction();
      return true;
    } catch (KafkaException e) {
      LOG.warn(
          "acknowledger: cannot commit the outcomes of {} order(s); reading them again",
          orders.size(),
          e);
      try {
        producer.abortTransaction();
      } catch (KafkaException again) {
        throw new IllegalStateException("the acknowledger's producer cannot go on", again);
      }
      Set<TopicPartition> assigned = consumer.assignment();
      first.forEach(
          (tp, offset) -> {
            if (assigned.contains(tp)) {
              consumer.seek(tp, offset);
            }
          });
      return false;
    }
  }

  private void report(AcknowledgeOrder o, MaintenanceApi.Outcome outcome, Instant now) {
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
                  now)));
    }
    counted.accept(outcome.outcome(), o.vms().size());
    LOG.info(
        "approval request {}: event {} through Azure's Maintenance API, for {} VM(s) without an"
            + " agent: {} ({}: {})",
        o.requestId(),
        o.eventId(),
        o.vms().size(),
        outcome.outcome(),
        outcome.reasonCode(),
        outcome.reason());
  }

  /** An order, or null for a record that is not one (logged, and passed over). */
  private AcknowledgeOrder read(ConsumerRecord<String, byte[]> r) {
    try {
      AcknowledgeOrder o =
          r.value() == null ? null : json.readValue(r.value(), AcknowledgeOrder.class);
      if (o == null
          || o.requestId() == null
          || o.resourceId() == null
          || o.expiresAt() == null
          || o.vms().isEmpty()) {
        throw new IllegalArgumentException("not a complete order");
      }
      return o;
    } catch (java.io.IOException | RuntimeException e) {
      LOG.error(
          "acknowledger: record {}-{}@{} is not an order; passed over: {}",
          r.topic(),
          r.partition(),
          r.offset(),
          e.getMessage());
      return null;
    }
  }

  /** Waits without reading: the assigned partitions paused, polled for the time. */
  private void pauseFor(long millis) {
    Set<TopicPartition> assigned = consumer.assignment();
    consumer.pause(assigned);
    try {
      consumer.poll(Duration.ofMillis(millis));
    } finally {
      consumer.resume(assigned);
    }
  }

  @Override
  public void close() {
    running = false;
    if (!started) {
      consumer.close(Duration.ofSeconds(5));
      producer.close(Duration.ofSeconds(5));
      return;
    }
    consumer.wakeup();
    try {
      thread.join(Duration.ofSeconds(15).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
