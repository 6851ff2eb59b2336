package dev.sebridge.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The benchmark harness behind {@code benchmarks/run.sh}. Everything on loopback: the IMDS
 * simulator and a Kafka broker in this JVM, the agent as its own process started exactly as the
 * launcher starts it, and the documentation's reference loop (Python, {@code requests}) against the
 * same simulator at the same time.
 *
 * <p>Usage: {@code Benchmarks --repo DIR --out REPORT.md [--changes N] [--approvals N]
 * [--footprint-seconds S] [--start-runs N] [--flood N] [--no-reference] [--only
 * detection,approval,flood,footprint,sinks,start] [--agent-opts "-XX:..."]}
 */
public final class Benchmarks {
  static final ObjectMapper JSON = new ObjectMapper();
  static final SimVm VM = SimVm.of("bench-vm-0", "66666666-0000-4000-8000-000000000000");
  static final String EVENTS = "scheduled-events";
  static final String COMMANDS = "sebridge-commands";

  final Path repo;
  final Path work;
  final int changes;
  final int approvals;
  final int footprintSeconds;
  final int startRuns;
  final boolean reference;
  final Report report = new Report();

  /** Each phase and its progress, as the run goes (benchmarks/run.sh takes about 15 minutes). */
  Progress progress;

  /** Garbage records behind the genuine approval (flood benchmark); each kind alone: 40 %. */
  int flood = 250_000;

  final Random random = new Random(7);

  /** JVM options added to the launcher's for every agent (--agent-opts), to try one out. */
  List<String> agentOptions = List.of();

  /** The phases to run (--only), all by default. */
  Set<String> phases = Set.of("detection", "approval", "flood", "footprint", "sinks", "start");

  Benchmarks(
      Path repo,
      Path work,
      int changes,
      int approvals,
      int footprintSeconds,
      int startRuns,
      boolean reference) {
    this.repo = repo;
    this.work = work;
    this.changes = changes;
    this.approvals = approvals;
    this.footprintSeconds = footprintSeconds;
    this.startRuns = startRuns;
    this.reference = reference;
  }

  /**
   * An event scheduled and then started on each simulator, and the agents' first publishes done,
   * before a memory or CPU window opens: 10 s and 5 s, shorter only when the window itself is (the
   * smoke test's few seconds), so that a full run measures exactly what it did before.
   */
  void settle(List<ImdsSimulator> sims) throws InterruptedException {
    List<String> ids = new ArrayList<>();
    for (ImdsSimulator sim : sims) {
      ids.add(sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())).withNotice(36000)));
    }
    Thread.sleep(Math.min(10, footprintSeconds) * 1000L);
    for (int i = 0; i < sims.size(); i++) {
      sims.get(i).startEvent(ids.get(i));
    }
    Thread.sleep(Math.min(5, footprintSeconds) * 1000L);
  }

  public static void main(String[] args) throws Exception {
    Path repo = Path.of(".");
    Path out = Path.of("benchmarks/REPORT.md");
    int changes = 200;
    int approvals = 1000;
    int footprint = 300;
    int starts = 5;
    int flood = 250_000;
    boolean reference = true;
    List<String> agentOpts = List.of();
    Set<String> only = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--repo" -> repo = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--changes" -> changes = Integer.parseInt(args[++i]);
        case "--approvals" -> approvals = Integer.parseInt(args[++i]);
        case "--footprint-seconds" -> footprint = Integer.parseInt(args[++i]);
        case "--start-runs" -> starts = Integer.parseInt(args[++i]);
        case "--no-reference" -> reference = false;
        case "--flood" -> flood = Integer.parseInt(args[++i]);
        case "--agent-opts" -> agentOpts = List.of(args[++i].trim().split("\\s+"));
        case "--only" -> only = Set.of(args[++i].split(","));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Path work = Files.createTempDirectory("sebridge-bench-");
    Benchmarks b =
        new Benchmarks(
            repo.toAbsolutePath().normalize(),
            work,
            changes,
            approvals,
            footprint,
            starts,
            reference);
    b.flood = flood;
    b.agentOptions = agentOpts;
    if (only != null) {
      b.phases = only;
    }
    b.runAll();
    Files.writeString(
        out,
        b.report.markdown(b.changes, b.approvals, b.footprintSeconds, b.startRuns, b.reference));
    System.out.println("report written to " + out);
  }

  void runAll() throws Exception {
    List<String> order = List.of("detection", "approval", "flood", "footprint", "sinks", "start");
    int count = (int) order.stream().filter(phases::contains).count();
    if (phases.contains("detection")) {
      count++; // two intervals
    }
    progress = new Progress(System.err, count);
    try (EmbeddedKafkaBroker kafka = new EmbeddedKafkaBroker(work.resolve("kafka")).start()) {
      if (phases.contains("detection")) {
        for (Duration interval : List.of(Duration.ofSeconds(1), Duration.ofMillis(250))) {
          progress.phase(
              "detection, poll every " + interval.toMillis() + " ms (" + changes + " changes)");
          detection(kafka, interval, reference && interval.equals(Duration.ofSeconds(1)));
        }
      }
      if (phases.contains("approval")) {
        progress.phase("approval round trips (" + approvals + ")");
        new ApprovalBenchmark(this).run(kafka);
      }
      if (phases.contains("flood")) {
        progress.phase("command flood (" + flood + " garbage records)");
        new FloodBenchmark(this).run(kafka);
      }
      if (phases.contains("footprint")) {
        progress.phase("footprint and CPU (" + footprintSeconds + " s window, then the floors)");
        new FootprintBenchmark(this).run(kafka);
      }
      if (phases.contains("sinks")) {
        progress.phase("sink cost");
        new SinkCostBenchmark(this).run(kafka);
      }
    }
    if (phases.contains("start")) {
      progress.phase("start time (" + startRuns + " runs)");
      startTime();
    }
  }

  AgentProcessHandle startAgent(String log, List<String> args) throws IOException {
    return startAgent(log, List.of(), args);
  }

  AgentProcessHandle startAgent(String log, List<String> jvmOptions, List<String> args)
      throws IOException {
    return startAgent(log, jvmOptions, Map.of(), args);
  }

  AgentProcessHandle startAgent(
      String log, List<String> jvmOptions, Map<String, String> env, List<String> args)
      throws IOException {
    List<String> all = new ArrayList<>(agentOptions);
    all.addAll(jvmOptions);
    return AgentProcessHandle.start(repo, work.resolve(log), all, env, args);
  }

  List<String> agentArgs(
      ImdsSimulator sim,
      EmbeddedKafkaBroker kafka,
      String topic,
      Duration interval,
      String state,
      List<String> extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "run",
                "--set",
                "imds.endpoint=" + sim.baseUri(VM.name()),
                "--set",
                "imds.poll-interval=" + interval.toMillis() + "ms",
                "--set",
                "state.dir=" + work.resolve(state),
                "--set",
                "sinks=kafka",
                "--set",
                "sink.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "--set",
                "sink.kafka.topic=" + topic,
                "--set",
                "heartbeat.interval=1h",
                "--set",
                "http.port=0"));
    for (String e : extra) {
      a.add("--set");
      a.add(e);
    }
    return a;
  }

  void detection(EmbeddedKafkaBroker kafka, Duration interval, boolean withReference)
      throws Exception {
    String topic = "events-" + interval.toMillis();
    kafka.createTopic(topic, 3);
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start();
        EnvelopeReader reader = new EnvelopeReader(kafka, topic);
        AgentProcessHandle agent =
            startAgent(
                "agent-detect-" + interval.toMillis() + ".log",
                agentArgs(
                    sim,
                    kafka,
                    topic,
                    interval,
                    "state-detect-" + interval.toMillis(),
                    List.of()));
        ReferenceLoop ref =
            withReference
                ? new ReferenceLoop(
                    repo.resolve("benchmarks/reference/reference_loop.py"),
                    sim.baseUri(VM.name()).toString())
                : null) {
      // Warm up: the agent knows its identity and has published once.
      sim.addEvent(
          EventSpec.scheduled("Freeze", List.of(VM.name()))
              .withId("WARMUP-" + interval.toMillis())
              .withNotice(36000));
      if (reader.await("WARMUP-" + interval.toMillis() + ":Scheduled", Duration.ofSeconds(60))
          < 0) {
        throw new IllegalStateException("the agent never published; see " + work);
      }
      Stats agentStats = new Stats();
      Stats refStats = new Stats();
      int missed = 0;
      String pending = null;
      for (int i = 0; i < changes; i++) {
        progress.progress("changes", i, changes);
        Thread.sleep(random.nextInt((int) interval.toMillis()) + 50);
        String key;
        long t0;
        double wall0;
        if (pending == null) {
          String id = "D-" + interval.toMillis() + "-" + i;
          wall0 =
              Instant.now().toEpochMilli() / 1000.0 + (Instant.now().getNano() % 1_000_000) / 1e9;
          t0 = System.nanoTime();
          sim.addEvent(
              EventSpec.scheduled("Reboot", List.of(VM.name())).withId(id).withNotice(36000));
          key = id + ":Scheduled";
          pending = id;
        } else {
          wall0 =
              Instant.now().toEpochMilli() / 1000.0 + (Instant.now().getNano() % 1_000_000) / 1e9;
          t0 = System.nanoTime();
          sim.cancelEvent(pending);
          key = pending + ":Canceled";
          pending = null;
        }
        long incarnation = sim.documentIncarnation();
        long t1 = reader.await(key, Duration.ofSeconds(10));
        if (t1 < 0) {
          missed++;
        } else {
          agentStats.add((t1 - t0) / 1e6);
        }
        if (ref != null) {
          double r = ref.awaitIncarnation(incarnation, Duration.ofSeconds(5));
          if (!Double.isNaN(r)) {
            refStats.add((r - wall0) * 1000);
          }
        }
      }
      progress.progress("changes", changes, changes);
      report.detection(interval, agentStats, missed, ref == null ? null : refStats);
    }
  }

  void startTime() throws Exception {
    Stats stats = new Stats();
    for (int i = 0; i < startRuns; i++) {
      progress.progress("starts", i, startRuns);
      try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start()) {
        Instant t0 = Instant.now();
        try (AgentProcessHandle agent =
            startAgent(
                "agent-start-" + i + ".log",
                List.of(
                    "run",
                    "--set",
                    "imds.endpoint=" + sim.baseUri(VM.name()),
                    "--set",
                    "state.dir=" + work.resolve("state-start-" + i),
                    "--set",
                    "sinks=stdout",
                    "--set",
                    "http.port=0"))) {
          long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
          while (sim.firstScheduledEventsGetAt().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(2);
          }
          sim.firstScheduledEventsGetAt()
              .ifPresent(t1 -> stats.add(Duration.between(t0, t1).toNanos() / 1e6));
        }
      }
    }
    progress.progress("starts", startRuns, startRuns);
    report.startTime(stats);
  }
}
