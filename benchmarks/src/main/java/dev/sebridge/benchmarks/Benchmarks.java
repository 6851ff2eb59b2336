package dev.sebridge.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.simulator.StartRequestRecord;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The benchmark harness behind {@code benchmarks/run.sh}. Everything on loopback: the IMDS
 * simulator and a Kafka broker in this JVM, the agent as its own process started exactly as the
 * launcher starts it, and the documentation's reference loop (Python, {@code requests}) against the
 * same simulator at the same time.
 *
 * <p>Usage: {@code Benchmarks --repo DIR --out REPORT.md [--changes N] [--approvals N]
 * [--footprint-seconds S] [--start-runs N] [--flood N] [--no-reference]}
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

  /** Garbage records behind the genuine approval (flood benchmark); each kind alone: 40 %. */
  int flood = 250_000;

  final Random random = new Random(7);

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

  public static void main(String[] args) throws Exception {
    Path repo = Path.of(".");
    Path out = Path.of("benchmarks/REPORT.md");
    int changes = 200;
    int approvals = 200;
    int footprint = 300;
    int starts = 5;
    int flood = 250_000;
    boolean reference = true;
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
    b.runAll();
    Files.writeString(
        out,
        b.report.markdown(b.changes, b.approvals, b.footprintSeconds, b.startRuns, b.reference));
    System.out.println("report written to " + out);
  }

  void runAll() throws Exception {
    try (EmbeddedKafkaBroker kafka = new EmbeddedKafkaBroker(work.resolve("kafka")).start()) {
      for (Duration interval : List.of(Duration.ofSeconds(1), Duration.ofMillis(250))) {
        detection(kafka, interval, reference && interval.equals(Duration.ofSeconds(1)));
      }
      approval(kafka);
      new FloodBenchmark(this).run(kafka);
      footprint(kafka);
    }
    startTime();
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

  /** Records, per "EventId:Transition", when a consumer could first read the envelope. */
  static final class Reader implements AutoCloseable {
    final Map<String, Long> seenNanos = new ConcurrentHashMap<>();
    final KafkaConsumer<byte[], byte[]> consumer;
    final Thread thread;
    volatile boolean stop;

    Reader(EmbeddedKafkaBroker kafka, String topic) {
      consumer =
          new KafkaConsumer<>(
              Map.of(
                  "bootstrap.servers",
                  kafka.bootstrapServers(),
                  "fetch.max.wait.ms",
                  "10",
                  "fetch.min.bytes",
                  "1"),
              new ByteArrayDeserializer(),
              new ByteArrayDeserializer());
      List<TopicPartition> parts =
          List.of(0, 1, 2).stream().map(p -> new TopicPartition(topic, p)).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      thread = new Thread(this::loop, "bench-reader");
      thread.setDaemon(true);
      thread.start();
    }

    void loop() {
      while (!stop) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
          long now = System.nanoTime();
          try {
            JsonNode e = JSON.readTree(r.value());
            JsonNode d = e.path("data");
            if (e.path("type").asText().startsWith("dev.sebridge.scheduledevent.")) {
              seenNanos.putIfAbsent(
                  d.path("event").path("EventId").asText() + ":" + d.path("transition").asText(),
                  now);
            }
          } catch (IOException ignored) {
            // not ours
          }
        }
      }
      consumer.close();
    }

    long await(String key, Duration timeout) throws InterruptedException {
      long end = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < end) {
        Long t = seenNanos.get(key);
        if (t != null) {
          return t;
        }
        Thread.sleep(1);
      }
      return -1;
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(2000);
    }
  }

  /**
   * The reference loop's document changes: unix time (seconds) of each line, by EventId:status set.
   */
  static final class ReferenceLoop implements AutoCloseable {
    final Process process;
    final List<double[]> lines = new ArrayList<>(); // [unixSeconds, incarnation]
    final Thread reader;

    ReferenceLoop(Path script, String endpoint) throws IOException {
      process =
          new ProcessBuilder("/usr/bin/python3", script.toString(), endpoint)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    String[] f = line.split(" ");
                    synchronized (lines) {
                      lines.add(new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1])});
                    }
                  }
                } catch (IOException ignored) {
                  // process ended
                }
              },
              "reference-reader");
      reader.setDaemon(true);
      reader.start();
    }

    /** Unix time at which the loop first printed a document with this incarnation, or NaN. */
    double awaitIncarnation(long incarnation, Duration timeout) throws InterruptedException {
      long end = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < end) {
        synchronized (lines) {
          for (double[] l : lines) {
            if ((long) l[1] >= incarnation) {
              return l[0];
            }
          }
        }
        Thread.sleep(2);
      }
      return Double.NaN;
    }

    long pid() {
      return process.pid();
    }

    @Override
    public void close() throws Exception {
      process.destroy();
      process.waitFor(5, TimeUnit.SECONDS);
    }
  }

  void detection(EmbeddedKafkaBroker kafka, Duration interval, boolean withReference)
      throws Exception {
    String topic = "events-" + interval.toMillis();
    kafka.createTopic(topic, 3);
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start();
        Reader reader = new Reader(kafka, topic);
        AgentProcessHandle agent =
            AgentProcessHandle.start(
                repo,
                work.resolve("agent-detect-" + interval.toMillis() + ".log"),
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
      report.detection(interval, agentStats, missed, ref == null ? null : refStats);
    }
  }

  void approval(EmbeddedKafkaBroker kafka) throws Exception {
    kafka.createCommandsTopic(COMMANDS, 3);
    String topic = "events-approval";
    kafka.createTopic(topic, 3);
    JWK key = new ECKeyGenerator(Curve.P_256).keyID("bench").generate();
    Files.writeString(work.resolve("trusted.jwks"), new JWKSet(key.toPublicJWK()).toString());
    CommandSigner signer = new CommandSigner(key, "bench");
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start();
        Reader reader = new Reader(kafka, topic);
        AgentProcessHandle agent =
            AgentProcessHandle.start(
                repo,
                work.resolve("agent-approval.log"),
                agentArgs(
                    sim,
                    kafka,
                    topic,
                    Duration.ofSeconds(1),
                    "state-approval",
                    List.of(
                        "commands.source=kafka",
                        "commands.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                        "commands.kafka.topic=" + COMMANDS,
                        "commands.trusted-keys=" + work.resolve("trusted.jwks"))));
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(), "linger.ms", "0", "acks", "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
      int partition =
          CommandPartitioning.partitionFor(VM.vmId(), producer.partitionsFor(COMMANDS).size());
      Stats stats = new Stats();
      int failed = 0;
      for (int i = 0; i < approvals; i++) {
        String id =
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(VM.name()))
                    .withId("A-" + i)
                    .withNotice(36000)
                    .withStartedFor(0.2));
        if (reader.await(id + ":Scheduled", Duration.ofSeconds(30)) < 0) {
          failed++;
          continue;
        }
        byte[] command =
            signer.sign(
                new CommandSigner.Request(
                    VM.vmId(), List.of(id), "bench", "", Instant.now(), Duration.ofMinutes(5)));
        int before = sim.startRequests().size();
        Instant sent = Instant.now();
        producer.send(
            new ProducerRecord<>(
                COMMANDS, partition, VM.vmId().getBytes(StandardCharsets.UTF_8), command));
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (sim.startRequests().size() == before && System.nanoTime() < end) {
          Thread.sleep(1);
        }
        List<StartRequestRecord> posts = sim.startRequests();
        if (posts.size() == before) {
          failed++;
        } else {
          stats.add(Duration.between(sent, posts.get(posts.size() - 1).at()).toNanos() / 1e6);
        }
      }
      report.approval(stats, failed);
    }
  }

  void footprint(EmbeddedKafkaBroker kafka) throws Exception {
    String topic = "events-footprint";
    kafka.createTopic(topic, 3);
    long ticksPerSecond = clockTicks();
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start();
        AgentProcessHandle agent =
            AgentProcessHandle.start(
                repo,
                work.resolve("agent-footprint.log"),
                agentArgs(sim, kafka, topic, Duration.ofSeconds(1), "state-footprint", List.of()));
        ReferenceLoop ref =
            reference
                ? new ReferenceLoop(
                    repo.resolve("benchmarks/reference/reference_loop.py"),
                    sim.baseUri(VM.name()).toString())
                : null) {
      // Steady state: started, a few events published, JIT settled.
      String id = sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())).withNotice(36000));
      Thread.sleep(10_000);
      sim.startEvent(id);
      Thread.sleep(5_000);
      long cpu0 = agent.cpuTicks();
      long refCpu0 = ref == null ? 0 : ProcStat.cpuTicks(ref.pid());
      long t0 = System.nanoTime();
      List<Long> rss = new ArrayList<>();
      List<Long> refRss = new ArrayList<>();
      for (int s = 0; s < footprintSeconds; s++) {
        Thread.sleep(1000);
        rss.add(agent.rssKib());
        if (ref != null) {
          refRss.add(ProcStat.rssKib(ref.pid()));
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpuPct = (agent.cpuTicks() - cpu0) * 100.0 / ticksPerSecond / seconds;
      double refCpuPct =
          ref == null
              ? Double.NaN
              : (ProcStat.cpuTicks(ref.pid()) - refCpu0) * 100.0 / ticksPerSecond / seconds;
      report.footprint(rss, cpuPct, refRss, refCpuPct, sim.scheduledEventsGets());
    }
  }

  void startTime() throws Exception {
    Stats stats = new Stats();
    for (int i = 0; i < startRuns; i++) {
      try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start()) {
        Instant t0 = Instant.now();
        try (AgentProcessHandle agent =
            AgentProcessHandle.start(
                repo,
                work.resolve("agent-start-" + i + ".log"),
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
    report.startTime(stats);
  }

  static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").start();
      return Long.parseLong(
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
    } catch (Exception e) {
      return 100;
    }
  }
}
