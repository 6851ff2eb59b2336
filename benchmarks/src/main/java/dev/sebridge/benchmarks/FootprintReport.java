package dev.sebridge.benchmarks;

import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;

/**
 * The report's memory and CPU sections (the footprint window, CPU once the JIT has settled, the
 * floors, the NMT breakdown, the Azure sinks' cost) and their targets, written into a {@link
 * Report}.
 */
final class FootprintReport {
  /**
   * The agent's own memory: its RSS at most this far above the JVM-and-Kafka-producer floor
   * measured in the same run (issue 30; it replaced an absolute 64 MiB that the floor alone
   * exceeds).
   */
  static final double RSS_ABOVE_FLOOR_MIB = 8;

  private final Report report;

  /** The agent's RSS and PSS maxima over the footprint window, in KiB, for the floor's target. */
  private long agentRssMaxKib = -1;

  private long agentPssMaxKib = -1;

  FootprintReport(Report report) {
    this.report = report;
  }

  void footprint(
      List<Long> rss,
      List<Long> pss,
      double cpuPct,
      List<Long> refRss,
      double refCpuPct,
      long polls) {
    LongSummaryStatistics r = rss.stream().mapToLong(Long::longValue).summaryStatistics();
    LongSummaryStatistics p = pss.stream().mapToLong(Long::longValue).summaryStatistics();
    StringBuilder b =
        new StringBuilder(
            "### Footprint, " + rss.size() + " s steady at 1 poll/s with the Kafka sink\n\n");
    b.append(
        String.format(
            "- sebridge: RSS min %.1f / avg %.1f / max %.1f MiB, PSS min %.1f / avg %.1f / max %.1f MiB, CPU %.2f %% of one core (simulator saw %d polls in total)%n",
            r.getMin() / 1024.0,
            r.getAverage() / 1024.0,
            r.getMax() / 1024.0,
            p.getMin() / 1024.0,
            p.getAverage() / 1024.0,
            p.getMax() / 1024.0,
            cpuPct,
            polls));
    if (!refRss.isEmpty()) {
      LongSummaryStatistics f = refRss.stream().mapToLong(Long::longValue).summaryStatistics();
      b.append(
          String.format(
              "- reference loop: RSS min %.1f / avg %.1f / max %.1f MiB, CPU %.2f %% of one core%n",
              f.getMin() / 1024.0, f.getAverage() / 1024.0, f.getMax() / 1024.0, refCpuPct));
      b.append(
          String.format(
              "- ratio sebridge / reference: CPU %.2fx, RSS %.2fx%n",
              cpuPct / refCpuPct, r.getMax() / (double) f.getMax()));
    }
    report.result(b.toString());
    agentRssMaxKib = r.getMax();
    agentPssMaxKib = p.getMax();
    report.target("CPU", "<= 1 % of one core", String.format("%.2f %%", cpuPct), cpuPct <= 1.0);
    if (!refRss.isEmpty()) {
      cpuRatio("footprint window (JIT warm-up included)", cpuPct, refCpuPct);
    }
  }

  /** CPU of the same agent and reference loop in the window after the footprint's. */
  void steadyCpu(int seconds, double cpuPct, double refCpuPct) {
    StringBuilder b =
        new StringBuilder(
            String.format(
                "### CPU once the JIT has settled%n%nThe same processes for %d s more, after the"
                    + " footprint window: at 1 poll/s the JIT compiles the poll path only after a"
                    + " few hundred polls, so the window above pays for the interpreter and the"
                    + " compiler too, a cost of every start, not of every hour.%n%n"
                    + "- sebridge: CPU %.3f %% of one core%n",
                seconds, cpuPct));
    boolean withReference = !Double.isNaN(refCpuPct);
    if (withReference) {
      b.append(
          String.format(
              "- reference loop: CPU %.3f %% of one core%n- ratio sebridge / reference: %.2fx%n",
              refCpuPct, cpuPct / refCpuPct));
    }
    report.result(b.toString());
    if (withReference) {
      cpuRatio("after it (JIT settled)", cpuPct, refCpuPct);
    }
  }

  /**
   * @param maxKib per process: {RSS max, PSS max} in KiB
   */
  void footprintFloor(int seconds, Map<String, long[]> maxKib, long[] producerFloorKib) {
    StringBuilder b =
        new StringBuilder(
            "### The JVM and the Kafka client without the agent\n\nAfter the agent's window, in"
                + " one of their own ("
                + seconds
                + " s after a 15 s warm-up), with the launcher's JVM options and the agent's class"
                + " path (`KafkaProducerFloor`, the sink's producer settings): the part of the"
                + " agent's footprint that any JVM agent with the Kafka sink pays, whatever it"
                + " does. Then the same producer with every footprint setting benchmarks/FOOTPRINT.md"
                + " tried on the agent and did not keep (each costs approval latency or flood"
                + " throughput), with no JIT at all, and the agent itself with those settings: what"
                + " the agent's own work costs above the floor.\n\n| process | RSS max | PSS max |\n"
                + "|---|---|---|\n");
    maxKib.forEach(
        (name, m) ->
            b.append(
                String.format(
                    "| %s | %.1f MiB | %.1f MiB |%n", name, m[0] / 1024.0, m[1] / 1024.0)));
    report.result(b.toString());
    if (agentRssMaxKib >= 0) {
      double above = (agentRssMaxKib - producerFloorKib[0]) / 1024.0;
      report.target(
          "RSS (max) above the JVM-and-Kafka-producer floor of the same run",
          String.format("<= %.0f MiB", RSS_ABOVE_FLOOR_MIB),
          String.format(
              "%+.1f MiB (agent %.1f, floor %.1f; PSS %+.1f MiB: %.1f, %.1f)",
              above,
              agentRssMaxKib / 1024.0,
              producerFloorKib[0] / 1024.0,
              (agentPssMaxKib - producerFloorKib[1]) / 1024.0,
              agentPssMaxKib / 1024.0,
              producerFloorKib[1] / 1024.0),
          above <= RSS_ABOVE_FLOOR_MIB);
    }
  }

  /**
   * @param maxKib per configuration: {RSS max, PSS max} in KiB, the Kafka sink alone first
   * @param laRows rows the Log Analytics test endpoint received (the sink did work)
   */
  void sinkCost(int seconds, Map<String, long[]> maxKib, int laRows, boolean alive) {
    StringBuilder b =
        new StringBuilder(
            "### What the Azure sinks cost on top\n\nThree agents side by side for "
                + seconds
                + " s at 1 poll/s, each with its own simulator: the Kafka sink alone, with the"
                + " Event Hubs sink (the real client over AMQP to the test peer), with the Log"
                + " Analytics sink (the real client over HTTPS to the test endpoint, managed-identity"
                + " token from the simulator).\n\n| sinks | RSS max | PSS max | RSS on top of Kafka |\n"
                + "|---|---|---|---|\n");
    long base = maxKib.values().iterator().next()[0];
    maxKib.forEach(
        (name, m) ->
            b.append(
                String.format(
                    "| %s | %.1f MiB | %.1f MiB | %+.1f MiB |%n",
                    name, m[0] / 1024.0, m[1] / 1024.0, (m[0] - base) / 1024.0)));
    b.append(
        String.format(
            "%nRows the Log Analytics endpoint received: %d; every agent alive at the end: %s.",
            laRows, alive ? "yes" : "**no**"));
    report.result(b.toString());
  }

  void footprintBreakdown(AgentDiagnostics d) {
    StringBuilder b =
        new StringBuilder(
            "### Where the memory goes\n\nA twin agent with the same settings, started beside the"
                + " measured one with `-XX:NativeMemoryTracking=summary` and `-Xlog:class+load`,"
                + " read with `jcmd PID VM.native_memory summary` at the end of the window. NMT"
                + " counts committed memory, a bound on what is resident; it does not see the JVM's"
                + " own binary, shared libraries or the CDS archive's mapping.\n\n");
    b.append("| NMT category | committed |\n|---|---|\n");
    d.committedKib()
        .forEach((k, v) -> b.append(String.format("| %s | %.1f MiB |%n", k, v / 1024.0)));
    b.append(
        String.format(
            "%nClasses loaded: %d (%d from the CDS archive); threads of the measured agent: %d.%n%n",
            d.classes(), d.classesFromCds(), d.threads()));
    b.append("| library | classes |\n|---|---|\n");
    d.classesByLibrary().forEach((k, v) -> b.append(String.format("| %s | %d |%n", k, v)));
    report.result(b.toString());
  }

  private void cpuRatio(String window, double cpuPct, double refCpuPct) {
    report.target(
        "CPU vs reference loop, " + window,
        "<= 1.5x",
        String.format("%.2fx", cpuPct / refCpuPct),
        cpuPct <= 1.5 * refCpuPct);
  }
}
