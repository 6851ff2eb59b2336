package dev.sebridge.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Collects results and writes benchmarks/REPORT.md with the targets and pass/fail. */
final class Report {
  private final List<String> results = new ArrayList<>();
  private final List<String> targets = new ArrayList<>();

  void target(String what, String target, String measured, boolean pass) {
    targets.add(targetRow(what, target, measured, pass));
  }

  /** A section of the results (FootprintReport's too). */
  void result(String markdown) {
    results.add(markdown);
  }

  /** One row of a report's targets table (FleetReport's too). */
  static String targetRow(String what, String target, String measured, boolean pass) {
    return "| "
        + what
        + " | "
        + target
        + " | "
        + measured
        + " | "
        + (pass ? "PASS" : "**FAIL**")
        + " |";
  }

  void detection(Duration interval, Stats agent, int missed, Stats reference) {
    long ms = interval.toMillis();
    results.add(
        "### Detection latency, poll interval "
            + ms
            + " ms\n\nFrom the simulator's document change to the envelope readable by a Kafka consumer.\n\n"
            + "- sebridge: "
            + agent.summary()
            + ", missed "
            + missed
            + (reference == null
                ? ""
                : "\n- reference loop (change to the loop printing it; it publishes nothing): "
                    + reference.summary()));
    target(
        "detection p99 at " + ms + " ms",
        "<= " + (ms + 30) + " ms",
        String.format("%.1f ms", agent.percentile(99)),
        missed == 0 && agent.percentile(99) <= ms + 30);
  }

  /**
   * @param rates one line per kind of garbage
   * @param delay from the genuine approval produced to its POST, as text
   */
  void flood(
      List<String> rates, int perKind, int flood, double floodSeconds, String delay, int posts) {
    results.add(
        "### A flooded commands topic\n\nThe agent's threads pinned to one core. Rejections per"
            + String.format(" second by kind (each kind: %,d records", perKind)
            + " keyed for the VM, produced while the agent was stopped with SIGSTOP, timed from"
            + " SIGCONT to the agent's counter reaching them all, so that the producer cannot be"
            + " the limit):\n\n"
            + String.join("\n", rates)
            + String.format(
                "\n\nA genuine approval produced right behind %,d garbage records (the three kinds"
                    + " mixed, produced in %.1f s): POSTed **%s** after it was produced; POSTs: %d.",
                flood, floodSeconds, delay, posts));
    boolean fast = rates.stream().allMatch(Report::atLeastTenThousand);
    target("rejections per second on one core", ">= 10,000 each kind", fast ? "yes" : "no", fast);
    long ms = delay.endsWith(" ms") ? Long.parseLong(delay.substring(0, delay.length() - 3)) : -1;
    target(
        "approval behind " + String.format("%,d", flood) + " garbage records",
        "<= 10 s",
        delay,
        ms >= 0 && ms <= 10_000 && posts == 1);
  }

  private static boolean atLeastTenThousand(String rateLine) {
    int star = rateLine.indexOf("**");
    String n = rateLine.substring(star + 2, rateLine.indexOf(' ', star)).replace(",", "");
    return Double.parseDouble(n) >= 10_000;
  }

  /** Approval latency at or under which the whole run must stay, every approval counted. */
  static final double APPROVAL_MAX_MS = 150;

  void approval(Stats s, List<Double> inOrder, int failed) {
    StringBuilder b =
        new StringBuilder(
            "### Approval latency\n\nFrom a signed command produced to Kafka to the StartRequests"
                + " POST arriving at the simulator, one command at a time; the first approval after"
                + " the agent started is included.\n\n- ");
    b.append(s.summary()).append(", failed ").append(failed).append('\n');
    if (!inOrder.isEmpty()) {
      b.append(String.format("- the first approval: %.1f ms%n", inOrder.get(0)));
      b.append("- the five slowest (approval number: ms): ");
      List<Integer> slowest = new ArrayList<>();
      for (int i = 0; i < inOrder.size(); i++) {
        slowest.add(i);
      }
      slowest.sort((x, y) -> Double.compare(inOrder.get(y), inOrder.get(x)));
      b.append(
          String.join(
              ", ",
              slowest.subList(0, Math.min(5, slowest.size())).stream()
                  .map(i -> String.format("#%d: %.1f", i + 1, inOrder.get(i)))
                  .toList()));
      b.append("\n\n").append(s.histogram(new double[] {5, 10, 20, 50, 100, 150, 250, 500}));
    }
    results.add(b.toString());
    target(
        "approval p99",
        "<= 150 ms",
        String.format("%.1f ms", s.percentile(99)),
        failed == 0 && s.percentile(99) <= 150);
    target(
        "approval max (" + s.count() + " approvals)",
        "<= " + (int) APPROVAL_MAX_MS + " ms",
        String.format("%.1f ms", s.max()),
        failed == 0 && s.max() <= APPROVAL_MAX_MS);
  }

  void startTime(Stats s) {
    results.add(
        "### Start time\n\nFrom starting the process (as the launcher does) to its first IMDS request.\n\n- "
            + s.summary());
    target(
        "start to first poll (p50)",
        "<= 760 ms (unchanged or better: 751 ms before issue 21)",
        String.format("%.0f ms", s.percentile(50)),
        s.count() > 0 && s.percentile(50) <= 760);
  }

  String markdown(
      int changes, int approvals, int footprintSeconds, int startRuns, boolean reference)
      throws Exception {
    StringBuilder b = new StringBuilder("# sebridge benchmark report\n\n");
    b.append("Generated by `benchmarks/run.sh` on ")
        .append(Instant.now())
        .append(".\n\n## Machine\n\n");
    b.append("- CPU: ")
        .append(cpuModel())
        .append(", ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores\n");
    b.append("- Memory: ").append(memTotal()).append("\n");
    b.append("- Java: ")
        .append(System.getProperty("java.vm.name"))
        .append(" ")
        .append(System.getProperty("java.version"))
        .append("\n");
    b.append("- Agent JVM options: `bridge-app/src/main/dist/jvm.options` (the launcher's)\n\n");
    b.append("## Method\n\n");
    b.append(
        "Everything on loopback in one run: the IMDS simulator and an embedded single-node Kafka broker (KRaft) in the harness JVM (replication factor 1, Kafka's default flush: no fsync after each record; since 2026-11-28, an fsync after each record before), the agent as its own process started like `./sebridge run`, ");
    b.append(
        reference
            ? "and the documentation's reference loop (`benchmarks/reference/reference_loop.py`, Python `requests`, polling every second) against the same simulator at the same time.\n"
            : "without the reference loop (--no-reference).\n");
    b.append(
        String.format(
            "Detection: %d document changes per poll interval (alternately a new Scheduled event and its cancellation), each after a random pause, the next one after the previous was seen. ",
            changes));
    b.append(
        String.format(
            "Approval: %d signed ES256 commands, one at a time, each for a Scheduled event the agent"
                + " had already published (events scheduled %d at a time), the first produced as"
                + " soon as the agent's /readyz said it reads the commands topic. ",
            approvals, ApprovalBenchmark.BATCH));
    b.append(
        String.format(
            "Footprint: %d s after a 15 s warm-up, RSS (VmRSS) and PSS (smaps_rollup) sampled every"
                + " second, CPU from the scheduler's run time of each thread (/proc/PID/task/*/schedstat,"
                + " nanoseconds, sampled every second; utime+stime count clock ticks, too coarse at"
                + " 0.2 %% of a core); a twin agent with Native Memory Tracking and"
                + " class-load logging on runs beside it for the breakdown. Start time: %d runs."
                + " What each footprint change was worth, and the ones not kept:"
                + " benchmarks/FOOTPRINT.md.%n%n",
            footprintSeconds, startRuns));
    b.append(
        "The simulator serves HTTP with the JDK's `com.sun.net.httpserver` with TCP_NODELAY on"
            + " (`sun.net.httpserver.nodelay`, set by the simulator): without it, an answer's body"
            + " waited for the client's delayed ACK (about 40 ms), which earlier reports counted in"
            + " the approval numbers although it was the simulator's, not the agent's.\n\n");
    b.append("## Targets\n\n| what | target | measured | result |\n|---|---|---|---|\n");
    targets.forEach(t -> b.append(t).append('\n'));
    b.append("\n## Results\n\n");
    results.forEach(r -> b.append(r).append("\n\n"));
    return b.toString();
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static String memTotal() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).get(0).replaceAll("\\s+", " ");
    } catch (Exception e) {
      return "unknown";
    }
  }
}
