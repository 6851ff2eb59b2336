package dev.sebridge.benchmarks;

import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The steady agent at 1 poll/s with the Kafka sink: RSS and PSS every second, CPU over the whole
 * window, beside the documentation's reference loop. A twin agent with the same settings runs at
 * the same time with Native Memory Tracking and class-load logging on, so the measured agent pays
 * for neither: its NMT summary, class count and thread count explain where the memory goes.
 */
final class FootprintBenchmark {
  /** CPU once the JIT has compiled the poll path, after the footprint window. */
  private static final int STEADY_SECONDS = 120;

  /** The floor's window: long enough to see its steady state, not the agent's five minutes. */
  private static final int FLOOR_SECONDS = 120;

  /**
   * Every JVM setting benchmarks/FOOTPRINT.md tried on the agent and did not keep, together: the
   * least memory the launcher's JVM could give a Kafka producer without giving up the JIT.
   */
  static final List<String> EVERY_SETTING_TRIED =
      List.of(
          "-Xmn2m",
          "-Xss256k",
          "-XX:MetaspaceReclaimPolicy=aggressive",
          "-XX:Tier3InvocationThreshold=2000",
          "-XX:Tier3MinInvocationThreshold=1000",
          "-XX:Tier3CompileThreshold=20000",
          "-XX:Tier3BackEdgeThreshold=600000",
          "-XX:TrimNativeHeapInterval=2000",
          "-Xshare:off");

  /** The floor the agent's own memory is measured against (FootprintReport). */
  private static final String PRODUCER_FLOOR =
      "the JVM and one Kafka producer sending a record a second";

  private final Benchmarks harness;
  private final FootprintReport out;

  FootprintBenchmark(Benchmarks harness) {
    this.harness = harness;
    this.out = new FootprintReport(harness.report);
  }

  void run(EmbeddedKafkaBroker kafka) throws Exception {
    String topic = "events-footprint";
    kafka.createTopic(topic, 3);
    kafka.createTopic(topic + "-twin", 3);
    kafka.createTopic(topic + "-floor", 3);
    Path classLog = harness.work.resolve("twin-classes.log");
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(Benchmarks.VM).build().start();
        ImdsSimulator twinSim = ImdsSimulator.builder().vm(Benchmarks.VM).build().start();
        AgentProcessHandle agent =
            harness.startAgent(
                "agent-footprint.log",
                harness.agentArgs(
                    sim, kafka, topic, Duration.ofSeconds(1), "state-footprint", List.of()));
        AgentProcessHandle twin =
            harness.startAgent(
                "agent-footprint-twin.log",
                List.of(
                    "-XX:NativeMemoryTracking=summary",
                    "-Xlog:class+load=info:file=" + classLog + ":uptime"),
                harness.agentArgs(
                    twinSim,
                    kafka,
                    topic + "-twin",
                    Duration.ofSeconds(1),
                    "state-footprint-twin",
                    List.of()));
        ReferenceLoop ref =
            harness.reference
                ? new ReferenceLoop(
                    harness.repo.resolve("benchmarks/reference/reference_loop.py"),
                    sim.baseUri(Benchmarks.VM.name()).toString())
                : null) {
      harness.settle(List.of(sim, twinSim));
      CpuWindow cpu = new CpuWindow(agent.pid(), ref == null ? null : ref.pid());
      List<Long> rss = new ArrayList<>();
      List<Long> pss = new ArrayList<>();
      List<Long> refRss = new ArrayList<>();
      for (int s = 0; s < harness.footprintSeconds; s++) {
        harness.progress.progress("footprint window, seconds", s, harness.footprintSeconds);
        Thread.sleep(1000);
        rss.add(agent.rssKib());
        pss.add(ProcStat.pssKib(agent.pid()));
        if (ref != null) {
          refRss.add(ProcStat.rssKib(ref.pid()));
        }
        cpu.sample();
      }
      out.footprint(
          rss, pss, cpu.agentPercent(), refRss, cpu.referencePercent(), sim.scheduledEventsGets());
      // At 1 poll/s the JIT compiles the poll path only after a few hundred polls: the window
      // above pays for the interpreter and the compiler. The same processes, once that is over.
      int steadySeconds = Math.min(harness.footprintSeconds, STEADY_SECONDS);
      cpu = new CpuWindow(agent.pid(), ref == null ? null : ref.pid());
      for (int s = 0; s < steadySeconds; s++) {
        Thread.sleep(1000);
        cpu.sample();
      }
      out.steadyCpu(steadySeconds, cpu.agentPercent(), cpu.referencePercent());
      out.footprintBreakdown(
          AgentDiagnostics.of(twin.pid(), classLog, ProcStat.threads(agent.pid())));
    }
    floors(kafka, topic + "-floor");
  }

  /**
   * The floor under the agent, in a window of its own after the agent's (so that only the agent's
   * NMT twin runs beside it while its CPU is measured): the JVM alone, the JVM with one Kafka
   * producer, and the same producer with every footprint setting tried and not kept, then with no
   * JIT at all; and the agent itself with those settings, to show what its own work costs above
   * that floor.
   */
  private void floors(EmbeddedKafkaBroker kafka, String topic) throws Exception {
    List<String> producer = List.of(kafka.bootstrapServers(), topic);
    kafka.createTopic(topic + "-agent", 3);
    Map<String, AgentProcessHandle> processes = new LinkedHashMap<>();
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(Benchmarks.VM).build().start();
        AgentProcessHandle agent =
            harness.startAgent(
                "agent-footprint-tried.log",
                EVERY_SETTING_TRIED,
                harness.agentArgs(
                    sim,
                    kafka,
                    topic + "-agent",
                    Duration.ofSeconds(1),
                    "state-footprint-tried",
                    List.of()));
        AgentProcessHandle jvm = floor("floor-jvm.log", List.of(), List.of());
        AgentProcessHandle plain = floor("floor-producer.log", List.of(), producer);
        AgentProcessHandle tried = floor("floor-tried.log", EVERY_SETTING_TRIED, producer);
        AgentProcessHandle noJit = floor("floor-xint.log", interpreted(), producer)) {
      processes.put("the JVM alone: an idle `main`", jvm);
      processes.put(PRODUCER_FLOOR, plain);
      processes.put(
          "the same, with every footprint setting tried and not kept: `"
              + String.join(" ", EVERY_SETTING_TRIED)
              + "`",
          tried);
      processes.put("the same and no JIT at all (`-Xint`), a lower bound, not an option", noJit);
      processes.put(
          "the agent (Kafka sink, 1 poll/s) with every footprint setting tried and not kept",
          agent);
      Map<String, long[]> floors = new LinkedHashMap<>(); // {RSS max, PSS max} in KiB
      processes.keySet().forEach(name -> floors.put(name, new long[2]));
      harness.settle(List.of(sim));
      int seconds = Math.min(harness.footprintSeconds, FLOOR_SECONDS);
      for (int s = 0; s < seconds; s++) {
        Thread.sleep(1000);
        for (var p : processes.entrySet()) {
          long[] max = floors.get(p.getKey());
          max[0] = Math.max(max[0], p.getValue().rssKib());
          max[1] = Math.max(max[1], ProcStat.pssKib(p.getValue().pid()));
        }
      }
      out.footprintFloor(seconds, floors, floors.get(PRODUCER_FLOOR));
    }
  }

  /** CPU of the agent and, when there is one, the reference loop over one window from now. */
  private static final class CpuWindow {
    private final ProcessCpu agent;
    private final ProcessCpu reference;
    private final long startNanos = System.nanoTime();
    private long lastNanos = startNanos;

    CpuWindow(long agentPid, Long referencePid) throws java.io.IOException {
      agent = ProcessCpu.start(agentPid);
      reference = referencePid == null ? null : ProcessCpu.start(referencePid);
    }

    void sample() throws java.io.IOException {
      agent.sample();
      if (reference != null) {
        reference.sample();
      }
      lastNanos = System.nanoTime();
    }

    double agentPercent() {
      return agent.nanos() * 100.0 / (lastNanos - startNanos);
    }

    double referencePercent() {
      return reference == null ? Double.NaN : reference.nanos() * 100.0 / (lastNanos - startNanos);
    }
  }

  private static List<String> interpreted() {
    List<String> o = new ArrayList<>(EVERY_SETTING_TRIED);
    o.add("-Xint");
    return o;
  }

  /**
   * {@link KafkaProducerFloor} with the launcher's JVM options (then {@code extra}) on the agent's
   * class path.
   */
  private AgentProcessHandle floor(String log, List<String> extra, List<String> args)
      throws java.io.IOException {
    List<String> options = new ArrayList<>(harness.agentOptions);
    options.addAll(extra);
    return AgentProcessHandle.startJava(
        harness.repo,
        harness.work.resolve(log),
        options,
        Map.of(),
        harness.repo.resolve("benchmarks/target/classes"),
        KafkaProducerFloor.class.getName(),
        args);
  }
}
