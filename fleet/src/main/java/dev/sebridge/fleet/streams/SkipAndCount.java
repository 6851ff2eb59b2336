package dev.sebridge.fleet.streams;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record the fleet service cannot read or apply is counted by kind, logged once per kind, and
 * skipped: a poison record never stops the fleet view. Counts are process-wide ({@link #counts()},
 * exported as {@code sebridge_fleet_skipped_records_total{kind}}).
 */
public final class SkipAndCount
    implements DeserializationExceptionHandler, ProcessingExceptionHandler {
  private static final Logger LOG = LoggerFactory.getLogger(SkipAndCount.class);
  private static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();

  /** Records skipped so far, by kind. */
  public static Map<String, AtomicLong> counts() {
    return COUNTS;
  }

  static void skipped(String kind, String detail) {
    if (COUNTS.computeIfAbsent(kind, k -> new AtomicLong()).getAndIncrement() == 0) {
      LOG.warn("skipping records the fleet service cannot apply ({}): {}", kind, detail);
    }
  }

  @Override
  public DeserializationExceptionHandler.Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    String kind =
        exception instanceof EnvelopeSerde.InvalidEnvelopeException e
            ? e.kind()
            : "unreadable " + record.topic();
    skipped(
        kind,
        exception.getMessage()
            + " ("
            + record.topic()
            + "/"
            + record.partition()
            + "@"
            + record.offset()
            + ")");
    return DeserializationExceptionHandler.Response.resume();
  }

  @Override
  public ProcessingExceptionHandler.Response handleError(
      ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
    skipped(
        "failed in " + context.processorNodeId(),
        exception
            + " ("
            + context.topic()
            + "/"
            + context.partition()
            + "@"
            + context.offset()
            + ")");
    return ProcessingExceptionHandler.Response.resume();
  }

  @Override
  public void configure(Map<String, ?> configs) {}
}
