package dev.sebridge.benchmarks;

import dev.sebridge.fleet.api.CampaignIndex;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.streams.FleetTopology;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the campaign index holds of a day of a 100,000-VM fleet's events ({@link CampaignIndex}):
 * 160,000 one-VM events of one host update, their EventIds and vmIds GUIDs as Azure's are, all
 * open, then all closed (a closed event keeps its counts in the index: {@code EventTally}). Heap
 * retained after a full collection, by difference; one JVM, one run each.
 *
 * <p>Usage: {@code CampaignIndexFootprint [--events 160000] [--report FILE]}: writes the report's
 * section "The campaign index's heap" (replaced when there is one).
 */
public final class CampaignIndexFootprint {
  static final String HEADING = "## The campaign index's heap";

  private CampaignIndexFootprint() {}

  public static void main(String[] args) throws Exception {
    int events = 160_000;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--events" -> events = Integer.parseInt(args[++i]);
        case "--report" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    long open = retained(events, false);
    long closed = retained(events, true);
    String text =
        String.format(
            Locale.ROOT,
            "%s%n%nWritten by `benchmarks/run-fleet-tick.sh` (`CampaignIndexFootprint`) on %s:"
                + " %,d one-VM events of one host update (EventIds and vmIds GUIDs), the heap the"
                + " index retains after a full collection.%n%n"
                + "| events | retained | an event |%n|---|---|---|%n"
                + "| all open | %.1f MiB | %d bytes |%n"
                + "| all closed (each with its counts, `EventTally`) | %.1f MiB | %d bytes |%n",
            HEADING,
            Instant.now(),
            events,
            open / 1048576.0,
            open / events,
            closed / 1048576.0,
            closed / events);
    System.out.print(text);
    if (out != null) {
      RolloutTickBenchmark.replaceSection(out, HEADING, text);
    }
  }

  /** The heap an index of these events retains. */
  static long retained(int n, boolean closed) {
    Instant t0 = Instant.parse("2026-11-25T10:00:00Z");
    long before = used();
    CampaignIndex index = new CampaignIndex();
    for (int i = 0; i < n; i++) {
      String vm = guid(i, 1);
      EventView e =
          new EventView(
              guid(i, 2).toUpperCase(Locale.ROOT),
              "Reboot",
              "Platform",
              t0.plusSeconds(i),
              300,
              "Host update",
              List.of("vm-" + i),
              t0.plusSeconds(i / 4),
              t0.plusSeconds(i / 4),
              closed ? t0.plusSeconds(i) : null,
              Map.of(
                  vm,
                  new VmEventState(
                      vm,
                      "vm-" + i,
                      String.valueOf(1 + i % 3),
                      "ss-" + i % 50,
                      closed ? "completed" : "scheduled",
                      null,
                      t0,
                      null)));
      index.keyChanged(FleetTopology.EVENTS_VIEW, e.eventId().toLowerCase(Locale.ROOT), e);
    }
    long after = used();
    if (index.campaigns().size() != 1) {
      throw new IllegalStateException("one host update, one campaign");
    }
    return after - before;
  }

  private static String guid(int i, int kind) {
    return String.format(Locale.ROOT, "%08x-%04x-4000-8000-%012x", i, kind, (long) i * 7919);
  }

  /** The heap in use once full collections free nothing more. */
  private static long used() {
    Runtime r = Runtime.getRuntime();
    long last = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      long now = r.totalMemory() - r.freeMemory();
      if (now >= last) {
        return now;
      }
      last = now;
    }
    return last;
  }
}
