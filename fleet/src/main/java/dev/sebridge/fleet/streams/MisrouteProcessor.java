package dev.sebridge.fleet.streams;

import dev.sebridge.command.CommandPartitioning;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the whole commands topic, whoever wrote it, and reports every record that sits on a
 * partition its key's agent never reads (docs/approvals.md, "Routing"): a sender with librdkafka's
 * default partitioner, or an upper-case key hashed as is. The agents cannot see these; the fleet
 * service counts them ({@code sebridge_fleet_misrouted_commands_total}) and logs one WARN per key
 * every 10 minutes at most, naming the partition it is on and the one it belongs to.
 */
final class MisrouteProcessor implements Processor<String, byte[], Void, Void> {
  private static final Logger LOG = LoggerFactory.getLogger(MisrouteProcessor.class);
  private static final Duration QUIET = Duration.ofMinutes(10);

  private final IntSupplier partitions;
  private final TopologyObserver observer;
  private final Map<String, Instant> warned =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
          return size() > 10_000;
        }
      };
  private ProcessorContext<Void, Void> context;

  MisrouteProcessor(IntSupplier partitions, TopologyObserver observer) {
    this.partitions = partitions;
    this.observer = observer;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    int n = partitions.getAsInt();
    if (n <= 0 || context.recordMetadata().isEmpty()) {
      return;
    }
    int actual = context.recordMetadata().get().partition();
    String key = record.key();
    int expected = key == null ? -1 : CommandPartitioning.partitionFor(key, n);
    if (expected == actual) {
      return;
    }
    observer.misrouted();
    Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
    String k = key == null ? "(no key)" : dev.sebridge.command.Untrusted.text(key, 128);
    Instant last = warned.get(k);
    if (last == null || now.isAfter(last.plus(QUIET))) {
      warned.put(k, now);
      LOG.warn(
          "a command keyed {} is on partition {} of the commands topic, where no agent reads it;"
              + " its VM reads partition {} (murmur2 of the lower-case vmId, docs/approvals.md)",
          k,
          actual,
          expected < 0 ? "(none: the record has no key)" : expected);
    }
  }
}
