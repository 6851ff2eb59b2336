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
 * A record the fleet service cannot read, apply or write (over the producer's {@code
 * max.request.size}: an event's view listing thousands of VMs on Event Hubs' 1 MiB) is counted by
 * kind, logged once per kind, and skipped: a poison record never stops the fleet view. Any other
 * failure to send stops the task as before (an exactly-once write the broker refused). Counts are
 * process-wide ({@link #counts()}, exported as {@code sebridge_fleet_skipped_records_total{kind}}).
 */
public final class SkipAndCount
    implements DeserializationExceptionHandler,
        ProcessingExceptionHandler,
        org.apache.kafka.streams.errors.ProductionExceptionHandler {
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
  public org.apache.kafka.streams.errors.ProductionExceptionHandler.Response handleError(
      ErrorHandlerContext context,
      org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> record,
      Exception exception) {
    if (exception instanceof org.apache.kafka.common.errors.RecordTooLargeException) {
      skipped(
          "too large for " + record.topic(),
          exception.getMessage()
              + " (a record of "
              + (record.value() == null ? 0 : record.value().length)
              + " bytes from "
              + context.processorNodeId()
              + ")");
      return org.apache.kafka.streams.errors.ProductionExceptionHandler.Response.resume();
    }
    return org.apache.kafka.streams.errors.ProductionExceptionHandler.Response.fail();
  }

  @Override
  public org.apache.kafka.streams.errors.ProductionExceptionHandler.Response
      handleSerializationError(
          ErrorHandlerContext context,
          org.apache.kafka.clients.producer.ProducerRecord record,
          Exception exception,
          org.apache.kafka.streams.errors.ProductionExceptionHandler.SerializationExceptionOrigin
              origin) {
    skipped("unwritable for " + record.topic(), exception.toString());
    return org.apache.kafka.streams.errors.ProductionExceptionHandler.Response.resume();
  }

  @Override
  public void configure(Map<String, ?> configs) {}
}
