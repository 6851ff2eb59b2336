package dev.sebridge.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * {@link FleetTickBenchmark} in several JVMs, one after the other, its figures pooled: one JVM's
 * ticks vary with where its data landed in memory and what the JIT made of the step (the same code
 * gave a waiting tick p50 of 54 ms in one JVM and 78 ms in the next), so one JVM's 30 ticks are not
 * the service's figure. The report's verdicts are on the pooled ticks; each JVM's are listed beside
 * them.
 *
 * <p>Usage: {@code FleetTickRuns [--jvms 3] [--report FILE] [FleetTickBenchmark's sizes]}. Each JVM
 * gets {@code -Xmx1g}; its log is left out, its one-line summary printed.
 */
public final class FleetTickRuns {
  static final String RESULT = "RESULT ";
  private static final ObjectMapper JSON = new ObjectMapper();

  private FleetTickRuns() {}

  /** The line a JVM prints its figures on. */
  static String line(FleetTickBenchmark.Result r) throws IOException {
    return RESULT + JSON.writeValueAsString(r);
  }

  /**
   * The runs pooled: every tick of every run in one sample each; of the single figures (load, heap,
   * the first and the releasing tick), the largest.
   */
  static FleetTickBenchmark.Result pooled(List<FleetTickBenchmark.Result> runs) {
    FleetTickBenchmark.Result first = runs.get(0);
    return new FleetTickBenchmark.Result(
        first.vms(),
        first.history(),
        first.open(),
        first.rollout(),
        first.groups(),
        runs.stream().mapToDouble(FleetTickBenchmark.Result::loadSeconds).max().orElseThrow(),
        runs.stream().mapToLong(FleetTickBenchmark.Result::heapMiB).max().orElseThrow(),
        runs.stream().mapToDouble(FleetTickBenchmark.Result::firstPolicyPassMs).max().orElseThrow(),
        pool(runs, FleetTickBenchmark.Result::steadyPolicyTicks),
        runs.stream().mapToDouble(FleetTickBenchmark.Result::releaseTickMs).max().orElseThrow(),
        runs.stream().mapToInt(FleetTickBenchmark.Result::approvals).min().orElseThrow(),
        pool(runs, FleetTickBenchmark.Result::coldRolloutTicks),
        pool(runs, FleetTickBenchmark.Result::steadyRolloutTicks),
        pool(runs, FleetTickBenchmark.Result::steadySeconds),
        pool(runs, FleetTickBenchmark.Result::steadyGcPauses));
  }

  private static Stats pool(
      List<FleetTickBenchmark.Result> runs, Function<FleetTickBenchmark.Result, Stats> which) {
    Stats out = new Stats();
    runs.forEach(r -> which.apply(r).samples().forEach(out::add));
    return out;
  }

  public static void main(String[] args) throws Exception {
    int jvms = 3;
    Path out = null;
    List<String> sizes = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jvms" -> jvms = Integer.parseInt(args[++i]);
        case "--report" -> out = Path.of(args[++i]);
        default -> sizes.add(args[i]);
      }
    }
    if (jvms < 1) {
      throw new IllegalArgumentException("--jvms must be at least 1");
    }
    List<FleetTickBenchmark.Result> runs = new ArrayList<>();
    for (int n = 1; n <= jvms; n++) {
      System.out.printf("fleet tick: JVM %d of %d%n", n, jvms);
      runs.add(runOne(sizes));
    }
    FleetTickBenchmark.Result all = pooled(runs);
    System.out.printf(
        "fleet tick, %d JVMs pooled: policy pass %s; rollout waiting %s%n",
        jvms, all.steadyPolicyTicks().summary(), all.steadyRolloutTicks().summary());
    if (out != null) {
      FleetTickReport.write(out, all, runs);
    }
  }

  /** One JVM of the benchmark, to its end; its log is dropped, its summary printed. */
  private static FleetTickBenchmark.Result runOne(List<String> sizes)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.add("-Dfleet.tick.waiting=" + FleetTickBenchmark.WAITING);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(FleetTickBenchmark.class.getName());
    command.addAll(sizes);
    command.add("--json");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String result = null;
    Deque<String> tail = new ArrayDeque<>(); // what a failed run said last
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String l = r.readLine(); l != null; l = r.readLine()) {
        if (l.startsWith(RESULT)) {
          result = l.substring(RESULT.length());
        } else if (l.startsWith("fleet tick,")) {
          System.out.println(l);
        }
        tail.addLast(l);
        if (tail.size() > 40) {
          tail.removeFirst();
        }
      }
    }
    int exit = p.waitFor();
    if (exit != 0 || result == null) {
      throw new IllegalStateException(
          "a run of the benchmark exited " + exit + ":\n" + String.join("\n", tail));
    }
    return JSON.readValue(result, FleetTickBenchmark.Result.class);
  }
}
