package dev.sebridge.benchmarks;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The fleet service at fleet scale ({@code benchmarks/run-fleet.sh}): a generator writes the
 * envelopes of 10,000 VMs into one broker; the service runs as its own process with the launcher's
 * settings. Measured: view delay p50/p99 at that rate, heap and RSS, rebuilding the view after a
 * restart, and signing and producing the commands for an event of 1,000 VMs. Then a second figure
 * with 100 real agents ({@link RealAgentsFigure}). Writes benchmarks/FLEET-REPORT.md.
 *
 * <p>Usage: {@code FleetBenchmark --repo DIR --out FILE [--vms N] [--steady-seconds S] [--agents N]
 * [--inventory]}
 */
public final class FleetBenchmark {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String EVENTS = "scheduled-events";
  static final String COMMANDS = "sebridge-commands";
  static final String TOKEN = "bench-approver-token-0123456789";
  static final Pattern QUANTILE =
      Pattern.compile(
          "sebridge_fleet_view_delay_seconds\\{quantile=\"([0-9.]+)\"\\} ([0-9.eE+-]+)");
  static final Pattern HEAP =
      Pattern.compile("jvm_memory_used_bytes\\{area=\"heap\",[^}]*\\} ([0-9.eE+-]+)");

  final Path repo;
  final Path work;
  final int vmCount;
  final int steadySeconds;
  final int agentCount;
  final FleetReport report = new FleetReport();
  final HttpClient http = HttpClient.newHttpClient();
  Duration apiAnswered;

  /** {@code --inventory}: the service runs with Azure's inventory of every generated VM. */
  boolean inventory;

  FleetBenchmark(Path repo, Path work, int vmCount, int steadySeconds, int agentCount) {
    this.repo = repo;
    this.work = work;
    this.vmCount = vmCount;
    this.steadySeconds = steadySeconds;
    this.agentCount = agentCount;
  }

  public static void main(String[] args) throws Exception {
    Path repo = Path.of(".");
    Path out = Path.of("benchmarks/FLEET-REPORT.md");
    int vms = 10_000;
    int steady = 180;
    int agents = 100;
    boolean inventory = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--repo" -> repo = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--vms" -> vms = Integer.parseInt(args[++i]);
        case "--steady-seconds" -> steady = Integer.parseInt(args[++i]);
        case "--agents" -> agents = Integer.parseInt(args[++i]);
        case "--inventory" -> inventory = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    FleetBenchmark b =
        new FleetBenchmark(
            repo.toAbsolutePath().normalize(),
            Files.createTempDirectory("sebridge-fleet-bench-"),
            vms,
            steady,
            agents);
    b.inventory = inventory;
    b.scale();
    if (agents > 0) { // --agents 0: the generated fleet alone
      new RealAgentsFigure(b.work.resolve("agents"), agents, b.report).run();
    }
    RolloutTickBenchmark.replaceSection(
        out,
        FleetReport.heading(vms, inventory),
        b.report.markdown(vms, steady, agents, inventory));
    System.out.println("report written to " + out);
    System.exit(0);
  }

  void scale() throws Exception {
    try (EmbeddedKafkaBroker kafka = new EmbeddedKafkaBroker(work.resolve("kafka")).start();
        FleetGenerator gen = new FleetGenerator(kafka.bootstrapServers(), EVENTS, vmCount, 1000)) {
      kafka.createTopic(EVENTS, 12);
      kafka.createCommandsTopic(COMMANDS, 12);
      writeSecrets();
      if (inventory) {
        writeInventory(kafka, gen);
      }
      long t0 = System.nanoTime();
      gen.heartbeatAll();
      System.out.printf("generator: %d heartbeats written in %d ms%n", vmCount, ms(t0));
      ProcessHandle fleet = startFleet(kafka, "fleet-1");
      awaitVms(fleet, vmCount, Duration.ofMinutes(3));
      report.firstLoad(Duration.ofNanos(System.nanoTime() - t0));

      // Steady state: heartbeats every 60 s per VM, maintenance moving every 20 s.
      ScheduledExecutorService ticks = Executors.newScheduledThreadPool(1);
      Duration tick = Duration.ofMillis(100);
      ticks.scheduleAtFixedRate(
          () -> gen.heartbeatTick(tick), 0, tick.toMillis(), TimeUnit.MILLISECONDS);
      ticks.scheduleAtFixedRate(gen::maintenanceStep, 0, 20, TimeUnit.SECONDS);
      long sentBefore = gen.sent.get();
      java.util.concurrent.atomic.AtomicLong maxRss = new java.util.concurrent.atomic.AtomicLong();
      double[] maxHeap = {0};
      ProcessHandle measured = fleet;
      ticks.scheduleAtFixedRate(
          () -> {
            try {
              maxRss.accumulateAndGet(ProcStat.rssKib(measured.pid()), Math::max);
              synchronized (maxHeap) {
                maxHeap[0] = Math.max(maxHeap[0], heapBytes(measured));
              }
            } catch (Exception e) {
              System.err.println("footprint sample failed: " + e);
            }
          },
          5,
          5,
          TimeUnit.SECONDS);
      ticks.awaitTermination(steadySeconds, TimeUnit.SECONDS); // the steady window itself
      String metrics = metrics(fleet);
      double rate = (gen.sent.get() - sentBefore) / (double) steadySeconds;
      report.steady(
          rate, quantile(metrics, "0.5"), quantile(metrics, "0.99"), maxHeap[0], maxRss.get());
      ticks.shutdownNow();
      ticks.awaitTermination(10, TimeUnit.SECONDS);
      gen.flush();

      // Restart: a new process rebuilds every view from the changelogs and view topics.
      fleet.close();
      long r0 = System.nanoTime();
      fleet = startFleet(kafka, "fleet-1");
      awaitVms(fleet, vmCount, Duration.ofMinutes(3));
      report.rebuild(Duration.ofNanos(System.nanoTime() - r0));

      // One event of 1,000 VMs approved at once.
      String event = "BENCH-1000-0000-4000-8000-000000000001";
      gen.transition(
          event, gen.reservedVms(), dev.sebridge.track.TransitionType.SCHEDULED, "Scheduled");
      gen.flush();
      awaitScheduled(fleet, event, gen.reservedVms().size());
      report.thousandCommands(
          approveAll(kafka, fleet, event, gen.reservedVms().size()), apiAnswered);
      fleet.close();
    }
  }

  /** From the POST to every command readable (committed) on the commands topic. */
  Duration approveAll(EmbeddedKafkaBroker kafka, ProcessHandle fleet, String event, int expected)
      throws Exception {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers", kafka.bootstrapServers(),
                "isolation.level", "read_committed",
                "fetch.max.wait.ms", "20"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(COMMANDS)
          .forEach(p -> parts.add(new TopicPartition(COMMANDS, p.partition())));
      c.assign(parts);
      c.seekToEnd(parts);
      parts.forEach(c::position);
      long t0 = System.nanoTime();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(fleet.url() + "/api/events/" + event + "/approve"))
                  .header("Authorization", "Bearer " + TOKEN)
                  .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"benchmark\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 202) {
        throw new IllegalStateException("approve answered " + r.statusCode() + ": " + r.body());
      }
      apiAnswered = Duration.ofNanos(System.nanoTime() - t0);
      int seen = 0;
      long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
      while (seen < expected && System.nanoTime() < deadline) {
        seen += c.poll(Duration.ofMillis(50)).count();
      }
      if (seen < expected) {
        throw new IllegalStateException(seen + " of " + expected + " commands within 60 s");
      }
      return Duration.ofNanos(System.nanoTime() - t0);
    }
  }

  /**
   * With {@code --inventory}: Azure's inventory as the service would have written it, one record
   * per generated VM on {@code sebridge-fleet-inventory} (the service's own Resource Graph reads
   * fail against an endpoint that is not there and write nothing, so what is measured is the
   * inventory held, stamped and counted at this size).
   */
  void writeInventory(EmbeddedKafkaBroker kafka, FleetGenerator gen) throws Exception {
    String topic = "sebridge-fleet-inventory";
    kafka.createTopic(topic, 6, Map.of("cleanup.policy", "compact"));
    try (var p =
        new org.apache.kafka.clients.producer.KafkaProducer<String, InventoryVm>(
            Map.of("bootstrap.servers", kafka.bootstrapServers(), "linger.ms", 20),
            new org.apache.kafka.common.serialization.StringSerializer(),
            new JsonSerde<>(InventoryVm.class).serializer())) {
      for (var vm : gen.vms()) {
        p.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(
                topic,
                InventoryVm.key(vm.vmId()),
                new InventoryVm(
                    vm.vmId(),
                    vm.resourceId(),
                    vm.name(),
                    vm.subscriptionId(),
                    vm.resourceGroupName(),
                    vm.location(),
                    vm.zone(),
                    vm.vmScaleSetName(),
                    null,
                    Map.of("fleet", "bench"))));
      }
      p.flush();
    }
    System.out.printf("inventory: %d VMs written to %s%n", gen.vms().size(), topic);
  }

  ProcessHandle startFleet(EmbeddedKafkaBroker kafka, String state) throws IOException {
    int port = freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As the launcher starts `sebridge fleet` (the sebridge script).
    cmd.addAll(List.of("-XX:+UseG1GC", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-Xss1m"));
    cmd.add("-cp");
    Path lib = repo.resolve("bridge-app/target/dist/lib");
    cmd.add(lib + "/*" + java.io.File.pathSeparator + lib.resolve("server") + "/*");
    cmd.add("dev.sebridge.app.Main");
    cmd.addAll(List.of("fleet", "serve"));
    Map<String, String> settings =
        Map.ofEntries(
            Map.entry("fleet.kafka.bootstrap-servers", kafka.bootstrapServers()),
            Map.entry("fleet.topic.envelopes", EVENTS),
            Map.entry("fleet.topic.commands", COMMANDS),
            Map.entry("fleet.replication-factor", "1"),
            Map.entry("fleet.state-dir", work.resolve(state).toString()),
            Map.entry("fleet.http.port", Integer.toString(port)),
            Map.entry("fleet.http.bind-address", "127.0.0.1"),
            Map.entry("fleet.auth.tokens-file", work.resolve("tokens.yaml").toString()),
            Map.entry("fleet.signing.key-file", work.resolve("key.jwk").toString()));
    if (inventory) {
      settings = new java.util.HashMap<>(settings);
      settings.put("fleet.inventory.subscriptions", "00000000-0000-0000-0000-000000000000");
      settings.put("fleet.inventory.endpoint", "https://127.0.0.1:9");
      settings.put("fleet.inventory.refresh", "1h");
    }
    settings.forEach(
        (k, v) -> {
          cmd.add("--set");
          cmd.add(k + "=" + v);
        });
    Path log = work.resolve(state + "-" + port + ".log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new ProcessHandle(p, "http://127.0.0.1:" + port, log);
  }

  record ProcessHandle(Process process, String url, Path log) implements AutoCloseable {
    long pid() {
      return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(40, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** Polls the service's API (another process) until its view holds {@code count} VMs. */
  void awaitVms(ProcessHandle fleet, int count, Duration timeout) {
    await("the fleet view holds " + count + " VMs")
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!fleet.process().isAlive()) {
                throw new IllegalStateException(
                    "the fleet service died: " + Files.readString(fleet.log()));
              }
              return ApiPages.count(path -> get(fleet, path), "/api/vms", "vms") >= count;
            });
  }

  void awaitScheduled(ProcessHandle fleet, String event, int count) {
    await("event " + event + " has " + count + " VMs Scheduled")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              JsonNode e = get(fleet, "/api/events/" + event);
              return e != null && e.path("counts").path("scheduled").asInt() >= count;
            });
  }

  JsonNode get(ProcessHandle fleet, String path) throws InterruptedException {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(fleet.url() + path))
                  .header("Authorization", "Bearer " + TOKEN)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (IOException notUpYet) {
      return null;
    }
  }

  String metrics(ProcessHandle fleet) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(fleet.url() + "/metrics"))
                .header("Authorization", "Bearer " + TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  double heapBytes(ProcessHandle fleet) throws Exception {
    Matcher m = HEAP.matcher(metrics(fleet));
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  static double quantile(String metrics, String q) {
    Matcher m = QUANTILE.matcher(metrics);
    while (m.find()) {
      if (Double.parseDouble(m.group(1)) == Double.parseDouble(q)) {
        return Double.parseDouble(m.group(2)) * 1000;
      }
    }
    return Double.NaN;
  }

  void writeSecrets() throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).keyID("fleet-bench").generate();
    Path keyFile = work.resolve("key.jwk");
    Files.writeString(keyFile, key.toJSONString());
    StateDirectory.restrict(keyFile);
    Path tokens = work.resolve("tokens.yaml");
    new ObjectMapper(new YAMLFactory())
        .writeValue(
            tokens.toFile(),
            List.of(Map.of("token", TOKEN, "principal", "bench", "role", "approver")));
    StateDirectory.restrict(tokens);
  }

  static long ms(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  static int freePort() throws IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
