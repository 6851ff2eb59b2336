package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.fleet.model.VmEventUpdate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs what Event Grid lost: at each inventory refresh it reads every scheduled event Azure
 * keeps for the VMs in scope (Resource Graph's {@code maintenanceresources}) and sends each, as
 * Azure's report of it now, to its event's partition ({@code <prefix>-by-event}), where it merges
 * with the deliveries and the agents' reports exactly as a delivery does: a status only moves
 * forward and what is already known changes nothing but the newest time. A lost Started is found at
 * the next read; a lost Completed too, while Azure still keeps the event.
 */
public final class CentralReconciler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CentralReconciler.class);

  /** How long a read waits for the broker to take its records. */
  static final Duration SEND_TIMEOUT = Duration.ofSeconds(60);

  /** What one read did: rows listed, events sent, rows that cannot be read (and why, the first). */
  public record Result(int listed, int sent, int malformed, String firstMalformed) {}

  private final Supplier<List<JsonNode>> rows;
  private final Producer<String, VmEventUpdate> producer;
  private final String topic;
  private final Clock clock;
  private final CentralEventParser parser;
  private final java.util.function.Predicate<AzureScheduledEvent> news;

  /**
   * @param rows reads {@code maintenanceresources} whole (throws when it cannot)
   * @param topic the events' partitions ({@code <prefix>-by-event})
   * @param news whether a row says what the views do not: a status ahead of theirs, or an event
   *     they do not have that is not over (sending only those keeps the views from being rewritten
   *     every read, and never brings back an event retention removed)
   */
  public CentralReconciler(
      Supplier<List<JsonNode>> rows,
      Producer<String, VmEventUpdate> producer,
      String topic,
      Clock clock,
      CentralEventParser parser,
      java.util.function.Predicate<AzureScheduledEvent> news) {
    this.news = news;
    this.rows = rows;
    this.producer = producer;
    this.topic = topic;
    this.clock = clock;
    this.parser = parser;
  }

  /**
   * Reads Azure's scheduled events and sends each.
   *
   * @throws RuntimeException when Resource Graph cannot be read whole or the broker does not take
   *     every record (the next read sends it all again)
   */
  public Result reconcile() {
    List<JsonNode> listed = rows.get();
    Instant now = clock.instant();
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    int malformed = 0;
    String first = null;
    try {
      for (JsonNode row : listed) {
        Delivery d = parser.row(row, now);
        if (d instanceof Delivery.Event e) {
          if (!news.test(e.event())) {
            continue; // the views already say so, or an event over that they forgot
          }
          VmEventUpdate u = VmEventUpdate.reconciled(e.event(), now);
          sent.add(producer.send(new ProducerRecord<>(topic, u.eventKey(), u)));
        } else if (d instanceof Delivery.Malformed m) {
          malformed++;
          first = first == null ? m.reason() : first;
        }
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending Azure's scheduled events", e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      throw new IllegalStateException("Azure's scheduled events could not be sent to " + topic, e);
    }
    if (malformed > 0) {
      LOG.warn(
          "central events: {} of {} Resource Graph rows cannot be read (the first: {})",
          malformed,
          listed.size(),
          first);
    }
    LOG.info("central events: {} listed by Resource Graph, {} sent", listed.size(), sent.size());
    return new Result(listed.size(), sent.size(), malformed, first);
  }

  /**
   * Whether a row of Resource Graph tells the views something: a status ahead of Azure's report
   * they hold ({@code held}, null: none), or an event they do not have that is not over.
   */
  public static boolean news(AzureScheduledEvent row, dev.sebridge.fleet.model.CentralReport held) {
    if (held == null) {
      return !row.status().over();
    }
    return !held.status().over() && row.status().ordinal() > held.status().ordinal();
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
