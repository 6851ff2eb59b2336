package dev.sebridge.sink.kafka;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes envelopes to a Kafka topic: record key = vmId (so one VM's envelopes stay in order in
 * one partition), value = the structured CloudEvents JSON, headers {@code content-type} and the
 * {@code ce_type}, {@code ce_id}, {@code ce_source}, {@code ce_subject} hints. The producer is
 * idempotent with {@code acks=all}: an export completes only once every record is acknowledged by
 * all in-sync replicas.
 *
 * <p>I/O only: retries across outages are the outbox's. A producer left unusable by a fatal error
 * is closed and replaced before the next export.
 */
public final class KafkaSink implements EventSink {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSink.class);

  private final String topic;
  private final Supplier<Producer<byte[], byte[]>> factory;
  private Producer<byte[], byte[]> producer;
  private boolean shutdown;

  public KafkaSink(String topic, Supplier<Producer<byte[], byte[]>> factory) {
    this.topic = topic;
    this.factory = factory;
  }

  @Override
  public String name() {
    return "kafka";
  }

  static ProducerRecord<byte[], byte[]> record(String topic, Envelope e) {
    RecordHeaders h = new RecordHeaders();
    h.add("content-type", Envelope.CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    h.add("ce_specversion", "1.0".getBytes(StandardCharsets.UTF_8));
    h.add("ce_type", e.type().getBytes(StandardCharsets.UTF_8));
    h.add("ce_id", e.id().getBytes(StandardCharsets.UTF_8));
    h.add("ce_source", e.source().getBytes(StandardCharsets.UTF_8));
    if (e.subject() != null) {
      h.add("ce_subject", e.subject().getBytes(StandardCharsets.UTF_8));
    }
    return new ProducerRecord<>(
        topic, null, e.partitionKey().getBytes(StandardCharsets.UTF_8), e.body(), h);
  }

  @Override
  public synchronized CompletableFuture<Void> export(List<Envelope> batch) {
    if (shutdown) {
      return CompletableFuture.failedFuture(new SinkException("kafka sink is shut down"));
    }
    if (batch.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    Producer<byte[], byte[]> p;
    try {
      p = producer();
    } catch (KafkaException e) {
      return CompletableFuture.failedFuture(classify(e));
    }
    // Per key (vmId), one record at a time: the next is sent only once the previous is
    // acknowledged. Were they all in flight at once, a request expiring during an outage could
    // fail while a later one for the same key succeeds, and the retry would put the later
    // envelope first on the topic. Different keys go in parallel.
    Map<String, List<Envelope>> byKey = new LinkedHashMap<>();
    for (Envelope e : batch) {
      byKey.computeIfAbsent(e.partitionKey(), k -> new ArrayList<>()).add(e);
    }
    List<CompletableFuture<Void>> chains = new ArrayList<>(byKey.size());
    for (List<Envelope> envelopes : byKey.values()) {
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (Envelope e : envelopes) {
        chain = chain.thenCompose(v -> send(p, e));
      }
      chains.add(chain);
    }
    return CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new))
        .whenComplete(
            (v, ex) -> {
              if (ex != null && !(unwrap(ex) instanceof RetriableSinkException)) {
                discardProducer();
              }
            });
  }

  private CompletableFuture<Void> send(Producer<byte[], byte[]> p, Envelope e) {
    CompletableFuture<Void> ack = new CompletableFuture<>();
    try {
      p.send(
          record(topic, e),
          (meta, ex) -> {
            if (ex == null) {
              ack.complete(null);
            } else {
              ack.completeExceptionally(classify(ex));
            }
          });
    } catch (KafkaException | IllegalStateException ex) {
      ack.completeExceptionally(classify(ex));
    }
    return ack;
  }

  private Producer<byte[], byte[]> producer() {
    if (producer == null) {
      producer = factory.get();
    }
    return producer;
  }

  private synchronized void discardProducer() {
    if (producer != null) {
      LOG.info("replacing the Kafka producer after a non-retriable error");
      Producer<byte[], byte[]> old = producer;
      producer = null;
      // close() may block for in-flight requests; never on the caller's thread for long.
      old.close(Duration.ZERO);
    }
  }

  static SinkException classify(Throwable ex) {
    Throwable e = unwrap(ex);
    if (e instanceof SinkException se) {
      return se;
    }
    if (e instanceof AuthenticationException
        || e instanceof AuthorizationException
        || e instanceof InvalidTopicException
        || e instanceof RecordTooLargeException) {
      return new SinkException("Kafka refused the records: " + e, e);
    }
    if (e instanceof RetriableException) {
      return new RetriableSinkException("Kafka: " + e.getMessage(), e);
    }
    // Fatal producer states (fenced, out-of-order sequence...) heal with a new producer.
    return new RetriableSinkException("Kafka producer failed: " + e, e);
  }

  private static Throwable unwrap(Throwable ex) {
    Throwable e = ex;
    while ((e instanceof java.util.concurrent.CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  @Override
  public synchronized CompletableFuture<Void> flush() {
    if (producer != null) {
      return CompletableFuture.runAsync(producer::flush);
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletableFuture<Void> shutdown() {
    if (shutdown) {
      return CompletableFuture.completedFuture(null);
    }
    shutdown = true;
    Producer<byte[], byte[]> p = producer;
    producer = null;
    if (p == null) {
      return CompletableFuture.completedFuture(null);
    }
    return CompletableFuture.runAsync(() -> p.close(Duration.ofSeconds(5)));
  }

  /**
   * Client metrics that nobody reads, off in every Kafka client of the agent (overridable through
   * the pass-through settings): no JMX MBean per client metric (the agent reports on /metrics), and
   * no KIP-714 metrics push to the broker, whose telemetry code (a shaded protobuf among it) the
   * client would otherwise load at start, about 1 MiB of every agent's memory (issue 21). Public
   * for the footprint benchmark, whose bare producer uses the same.
   */
  public static final Map<String, Object> NO_CLIENT_METRICS =
      Map.of("metric.reporters", "", "enable.metrics.push", "false");

  /** A client's defaults with {@link #NO_CLIENT_METRICS} added, unmodifiable. */
  static Map<String, Object> withNoClientMetrics(Map<String, Object> defaults) {
    Map<String, Object> d = new java.util.HashMap<>(defaults);
    d.putAll(NO_CLIENT_METRICS);
    return Map.copyOf(d);
  }

  /**
   * The producer settings sebridge insists on; see {@link KafkaSinkProvider}. Public for the
   * footprint benchmark, whose bare producer uses the same.
   */
  public static Map<String, Object> required() {
    return Map.of(
        "enable.idempotence", "true",
        "acks", "all",
        "key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer",
        "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
  }
}
