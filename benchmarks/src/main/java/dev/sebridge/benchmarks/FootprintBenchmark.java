package dev.sebridge.benchmarks;

import dev.sebridge.simulator.EventSpec;
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
  private final Benchmarks harness;

  FootprintBenchmark(Benchmarks harness) {
    this.harness = harness;
  }

  void run(EmbeddedKafkaBroker kafka) throws Exception {
    String topic = "events-footprint";
    kafka.createTopic(topic, 3);
    kafka.createTopic(topic + "-twin", 3);
    kafka.createTopic(topic + "-floor", 3);
    long ticksPerSecond = Benchmarks.clockTicks();
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
        AgentProcessHandle jvmAlone = floor("floor-jvm.log", List.of());
        AgentProcessHandle producerAlone =
            floor("floor-producer.log", List.of(kafka.bootstrapServers(), topic + "-floor"));
        ReferenceLoop ref =
            harness.reference
                ? new ReferenceLoop(
                    harness.repo.resolve("benchmarks/reference/reference_loop.py"),
                    sim.baseUri(Benchmarks.VM.name()).toString())
                : null) {
      // Steady state: started, a few events published, JIT settled.
      String id =
          sim.addEvent(
              EventSpec.scheduled("Freeze", List.of(Benchmarks.VM.name())).withNotice(36000));
      String twinId =
          twinSim.addEvent(
              EventSpec.scheduled("Freeze", List.of(Benchmarks.VM.name())).withNotice(36000));
      Thread.sleep(10_000);
      sim.startEvent(id);
      twinSim.startEvent(twinId);
      Thread.sleep(5_000);
      long cpu0 = agent.cpuTicks();
      long refCpu0 = ref == null ? 0 : ProcStat.cpuTicks(ref.pid());
      long t0 = System.nanoTime();
      List<Long> rss = new ArrayList<>();
      List<Long> pss = new ArrayList<>();
      List<Long> refRss = new ArrayList<>();
      Map<String, AgentProcessHandle> floorProcesses = new LinkedHashMap<>();
      floorProcesses.put("the JVM alone: an idle `main`", jvmAlone);
      floorProcesses.put("the JVM and one Kafka producer sending a record a second", producerAlone);
      Map<String, long[]> floors = new LinkedHashMap<>(); // {RSS max, PSS max} in KiB
      floorProcesses.keySet().forEach(name -> floors.put(name, new long[2]));
      for (int s = 0; s < harness.footprintSeconds; s++) {
        Thread.sleep(1000);
        rss.add(agent.rssKib());
        pss.add(ProcStat.pssKib(agent.pid()));
        if (ref != null) {
          refRss.add(ProcStat.rssKib(ref.pid()));
        }
        for (var floor : floorProcesses.entrySet()) {
          long[] max = floors.get(floor.getKey());
          max[0] = Math.max(max[0], floor.getValue().rssKib());
          max[1] = Math.max(max[1], ProcStat.pssKib(floor.getValue().pid()));
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpuPct = (agent.cpuTicks() - cpu0) * 100.0 / ticksPerSecond / seconds;
      double refCpuPct =
          ref == null
              ? Double.NaN
              : (ProcStat.cpuTicks(ref.pid()) - refCpu0) * 100.0 / ticksPerSecond / seconds;
      harness.report.footprint(rss, pss, cpuPct, refRss, refCpuPct, sim.scheduledEventsGets());
      harness.report.footprintFloor(floors);
      harness.report.footprintBreakdown(
          AgentDiagnostics.of(twin.pid(), classLog, ProcStat.threads(agent.pid())));
    }
  }

  /** {@link KafkaProducerFloor} with the launcher's JVM options on the agent's class path. */
  private AgentProcessHandle floor(String log, List<String> args) throws java.io.IOException {
    return AgentProcessHandle.startJava(
        harness.repo,
        harness.work.resolve(log),
        harness.agentOptions,
        Map.of(),
        harness.repo.resolve("benchmarks/target/classes"),
        KafkaProducerFloor.class.getName(),
        args);
  }
}
