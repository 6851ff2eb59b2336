package dev.sebridge.fleet.agentless;

import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.ResultReport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * One consumer and its transactional producer of an {@link Acknowledger}: answers a batch of orders
 * in one Kafka transaction, each partition's orders in turn up to one whose request the view does
 * not show yet ({@link OrderChecks}); calls Azure once per VM, scale set or availability set, none
 * past its orders' lifetimes; writes each VM's outcome to the request's partition with the orders'
 * offsets. A commit that fails keeps nothing, and the batch is read again.
 */
final class OrderSession {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OrderSession.class);

  /**
   * What every session of one acknowledger shares.
   *
   * @param closing whether the acknowledger is closing: no call starts then
   */
  record Parts(
      MaintenanceApi api,
      OrderChecks checks,
      java.time.Clock clock,
      String resultsTopic,
      java.util.function.BiConsumer<String, Integer> counted,
      java.util.function.BooleanSupplier closing) {}

  /** How a batch of orders ended. */
  enum Answered {
    /** Committed, every order of it. */
    COMMITTED,
    /** Committed up to an order whose request the view does not show yet: read again from it. */
    WAITING,
    /** Nothing kept: read again from its first order. */
    FAILED
  }

  private final Consumer<String, byte[]> consumer;
  private final Producer<String, ResultReport> producer;
  private final Parts parts;

  OrderSession(
      Consumer<String, byte[]> consumer, Producer<String, ResultReport> producer, Parts parts) {
    this.consumer = consumer;
    this.producer = producer;
    this.parts = parts;
  }

  /**
   * Answers a batch in one transaction: each partition's orders in turn, up to one whose request
   * the view does not show yet.
   */
  Answered answer(ConsumerRecords<String, byte[]> records) {
    Instant now = parts.clock().instant();
    parts.checks().forgetOld(now);
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    Map<TopicPartition, Long> first = new HashMap<>();
    Map<TopicPartition, Long> waiting = new HashMap<>();
    List<OrderChecks.Fate> fates = new ArrayList<>();
    for (TopicPartition tp : records.partitions()) {
      for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
        first.putIfAbsent(tp, r.offset());
        OrderChecks.Fate f = parts.checks().fate(r, now);
        if (f instanceof OrderChecks.Wait) {
          waiting.put(tp, r.offset());
          break;
        }
        parts.checks().answered(r);
        fates.add(f);
        next.put(tp, new OffsetAndMetadata(r.offset() + 1));
      }
    }
    Map<String, MaintenanceApi.Outcome> outcomes = acknowledge(fates);
    for (OrderChecks.Fate f : fates) {
      if (f instanceof OrderChecks.Act a && outcomes.containsKey(a.order().resourceId())) {
        parts.checks().acted(a.order(), now);
      }
    }
    List<Map.Entry<String, Integer>> counts = new ArrayList<>();
    if (!next.isEmpty()) {
      try {
        producer.beginTransaction();
        Instant at = parts.clock().instant();
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
    counts.forEach(c -> parts.counted().accept(c.getKey(), c.getValue()));
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
                MaintenanceApi.parentOf(a.order().resourceId()).toLowerCase(java.util.Locale.ROOT),
                k -> new ArrayList<>())
            .add(a.order());
      }
    }
    Map<String, MaintenanceApi.Outcome> out = new HashMap<>();
    for (List<AcknowledgeOrder> orders : byParent.values()) {
      if (parts.closing().getAsBoolean()) {
        // Closing: nothing more is called, and nothing of the batch is committed.
        throw new WakeupException();
      }
      // Only the orders still within their lifetime now (an earlier call may have taken long);
      // the call ends by the earliest of theirs. The others are answered expired, not sent.
      Instant now = parts.clock().instant();
      List<AcknowledgeOrder> live =
          orders.stream().filter(o -> now.isBefore(o.expiresAt())).toList();
      if (live.isEmpty()) {
        continue;
      }
      Instant deadline =
          live.stream().map(AcknowledgeOrder::expiresAt).min(Instant::compareTo).orElseThrow();
      out.putAll(
          parts
              .api()
              .acknowledge(
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
              parts.resultsTopic(),
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
