package dev.sebridge.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.streams.JsonSerde;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reading the fleet's views from JSON as every store read, restore and API call does: 100,000
 * one-VM event views (each keyed by a vmId no other view has), read by the service's mapper ({@link
 * JsonSerde#JSON}, field names not canonicalised) and by Jackson's default (field names
 * canonicalised, as the service read them before). Time and bytes allocated, third of three rounds.
 *
 * <p>Usage: {@code ViewReadBenchmark [--views 100000] [--report FILE]}: writes the report's section
 * "Reading views" (replaced when there is one).
 */
public final class ViewReadBenchmark {
  static final String HEADING = "## Reading views";

  record Round(double millis, double megabytes) {}

  private ViewReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int views = 100_000;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--views" -> views = Integer.parseInt(args[++i]);
        case "--report" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<byte[]> docs = documents(views);
    Round before = read(canonicalising(), docs);
    Round now = read(JsonSerde.JSON, docs);
    String text =
        String.format(
            "%s%n%nWritten by `benchmarks/run-fleet-tick.sh` (`ViewReadBenchmark`) on %s (%d CPUs):"
                + " %,d one-VM event views read from JSON, each keyed by a vmId no other view has"
                + " (third of three rounds, one thread).%n%n"
                + "| mapper | time | allocated |%n|---|---|---|%n"
                + "| Jackson's default (field names canonicalised, the service before) | %.0f ms |"
                + " %,.0f MB |%n"
                + "| the service's (`JsonSerde.JSON`, not canonicalised) | %.0f ms | %,.0f MB |%n%n"
                + "Jackson's symbol table copies itself for each document that brings a field name"
                + " it has not seen, and the views' maps are keyed by vmIds and request ids.%n",
            HEADING,
            Instant.now(),
            Runtime.getRuntime().availableProcessors(),
            views,
            before.millis(),
            before.megabytes(),
            now.millis(),
            now.megabytes());
    System.out.print(text);
    if (out != null) {
      RolloutTickBenchmark.replaceSection(out, HEADING, text);
    }
  }

  static ObjectMapper canonicalising() {
    return new ObjectMapper(
            JsonFactory.builder().enable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES).build())
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  static List<byte[]> documents(int n) throws Exception {
    Instant t = Instant.parse("2026-11-26T10:00:00Z");
    List<byte[]> docs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String vm = String.format("%08x-0000-4000-8000-%012d", i, i);
      docs.add(
          JsonSerde.JSON.writeValueAsBytes(
              new EventView(
                  "E-" + i,
                  "Reboot",
                  "Platform",
                  t,
                  -1,
                  "planned",
                  List.of("web-" + i),
                  t,
                  t,
                  null,
                  Map.of(
                      vm,
                      new VmEventState(vm, "web-" + i, "1", "ss", "scheduled", null, t, null)))));
    }
    return docs;
  }

  static Round read(ObjectMapper mapper, List<byte[]> docs) throws Exception {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    Round last = null;
    for (int round = 0; round < 3; round++) {
      long bytes = mx.getCurrentThreadAllocatedBytes();
      long start = System.nanoTime();
      for (byte[] d : docs) {
        mapper.readValue(d, EventView.class);
      }
      last =
          new Round(
              (System.nanoTime() - start) / 1e6,
              (mx.getCurrentThreadAllocatedBytes() - bytes) / 1e6);
    }
    return last;
  }
}
