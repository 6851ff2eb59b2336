package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

/**
 * A record too large to write (an event's view listing thousands of VMs, over Event Hubs' 1 MiB) is
 * counted and skipped, never a stream thread stopped and replaced until the client gives up; any
 * other failure to send still fails the task.
 */
class SkipAndCountTest {
  @Test
  void aRecordTooLargeIsCountedAndSkippedAndOtherSendFailuresStillFail() {
    SkipAndCount handler = new SkipAndCount();
    ProducerRecord<byte[], byte[]> big =
        new ProducerRecord<>("fleet-views-events", "e".getBytes(), new byte[2 * 1024 * 1024]);
    long before = count("too large for fleet-views-events");
    assertThat(
            handler.handleError(context(), big, new RecordTooLargeException("too large")).result())
        .isEqualTo(ProductionExceptionHandler.Result.RESUME);
    assertThat(count("too large for fleet-views-events")).isEqualTo(before + 1);
    assertThat(handler.handleError(context(), big, new TimeoutException("broker gone")).result())
        .isEqualTo(ProductionExceptionHandler.Result.FAIL);
  }

  private static long count(String kind) {
    var c = SkipAndCount.counts().get(kind);
    return c == null ? 0 : c.get();
  }

  private static ErrorHandlerContext context() {
    return new ErrorHandlerContext() {
      @Override
      public String topic() {
        return "fleet-by-event";
      }

      @Override
      public int partition() {
        return 0;
      }

      @Override
      public long offset() {
        return 7;
      }

      @Override
      public Headers headers() {
        return new RecordHeaders();
      }

      @Override
      public String processorNodeId() {
        return "events";
      }

      @Override
      public TaskId taskId() {
        return new TaskId(1, 0);
      }

      @Override
      public long timestamp() {
        return 0;
      }

      @Override
      public byte[] sourceRawKey() {
        return null;
      }

      @Override
      public byte[] sourceRawValue() {
        return null;
      }
    };
  }
}
