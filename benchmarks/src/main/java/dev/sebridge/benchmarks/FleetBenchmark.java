package dev.sebridge.benchmarks;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The fleet service at fleet scale ({@code benchmarks/run-fleet.sh}): a generator writes the
 * envelopes of 10,000 VMs into one broker; the service runs as its own process with the launcher's
 * settings. Measured: view delay p50/p99 at that rate, heap and RSS, rebuilding the view after a
 * restart, and signing and producing the commands for an event of 1,000 VMs. Then a second figure
 * with 100 real agents ({@link RealAgentsFigure}). Writes benchmarks/FLEET-REPORT.md.
 *
 * <p>Usage: {@code FleetBenchmark --repo DIR --out FILE [--vms N] [--steady-seconds S] [--agents N]
 * [--inventory] [--maintenance-waves] [--instances N] [--fleet-heap SIZE] [--api-seconds S]
 * [--fleet-jvm-option OPTION]... [--closed-history N]}
 */
public final class FleetBenchmark {
  static final String EVENTS = "scheduled-events";
  static final String COMMANDS = "sebridge-commands";

  final Path repo;
  final Path work;
  final int vmCount;
  final int steadySeconds;
  final int agentCount;
  final FleetReport report;

  /** {@code --inventory}: the service runs with Azure's inventory of every generated VM. */
  boolean inventory;

  /**
   * {@code --maintenance-waves}: every open event moves on at once every 20 s (2,000 and 4,000
   * transitions alternately at 100,000 VMs) instead of each by its own clock ({@link
   * FleetGenerator}).
   */
  boolean waves;

  /**
   * {@code --instances}: service instances of one application (the RSS target is per
   * instance with 3); the others join after the first load, and the RSS of each is sampled.
   */
  int instances = 1;

  /** {@code --fleet-heap}: the service's {@code -Xmx} (the launcher's is 512m). */
  String heap = FleetProcess.LAUNCHER_HEAP;

  /** {@code --fleet-jvm-option} (repeated): more options for the service's JVM (JFR, GC logs). */
  final List<String> jvmOptions = new ArrayList<>();

  /** {@code --api-seconds}: each phase of the API under load ({@link FleetApiPhases}); 0: none. */
  int apiSeconds = 60;

  /**
   * {@code --closed-history}: one-VM events written scheduled, started and completed after the
   * first load, before the steady window ({@link ClosedHistory}). 0: none.
   */
  int closedHistory;

  FleetBenchmark(Path repo, Path work, int vmCount, int steadySeconds, int agentCount) {
    this.repo = repo;
    this.work = work;
    this.vmCount = vmCount;
    this.steadySeconds = steadySeconds;
    this.agentCount = agentCount;
    this.report = new FleetReport(vmCount);
  }

  public static void main(String[] args) throws Exception {
    Path repo = Path.of(".");
    Path out = Path.of("benchmarks/FLEET-REPORT.md");
    int vms = 10_000;
    int steady = 180;
    int agents = 100;
    boolean inventory = false;
    boolean waves = false;
    int instances = 1;
    String heap = FleetProcess.LAUNCHER_HEAP;
    int apiSeconds = 60;
    int closedHistory = 0;
    List<String> jvmOptions = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--repo" -> repo = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--vms" -> vms = Integer.parseInt(args[++i]);
        case "--steady-seconds" -> steady = Integer.parseInt(args[++i]);
        case "--agents" -> agents = Integer.parseInt(args[++i]);
        case "--inventory" -> inventory = true;
        case "--maintenance-waves" -> waves = true;
        case "--instances" -> {
          instances = Integer.parseInt(args[++i]);
          if (instances < 1) {
            throw new IllegalArgumentException("--instances must be at least 1");
          }
        }
        case "--fleet-heap" -> heap = args[++i];
        case "--api-seconds" -> apiSeconds = Integer.parseInt(args[++i]);
        case "--fleet-jvm-option" -> jvmOptions.add(args[++i]);
        case "--closed-history" -> closedHistory = Integer.parseInt(args[++i]);
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
    b.waves = waves;
    b.instances = instances;
    b.heap = heap;
    b.apiSeconds = apiSeconds;
    b.closedHistory = closedHistory;
    b.jvmOptions.addAll(jvmOptions);
    b.scale();
    if (agents > 0) { // --agents 0: the generated fleet alone
      new RealAgentsFigure(b.work.resolve("agents"), agents, b.report).run();
    }
    RolloutTickBenchmark.replaceSection(
        out,
        FleetReport.heading(vms, inventory, waves, instances),
        b.report.markdown(vms, steady, agents, apiSeconds, inventory, waves, instances, heap));
    System.out.println("report written to " + out);
    System.exit(0);
  }

  void scale() throws Exception {
    try (EmbeddedKafkaBroker kafka = new EmbeddedKafkaBroker(work.resolve("kafka")).start();
        FleetGenerator gen = new FleetGenerator(kafka.bootstrapServers(), EVENTS, vmCount, 1000)) {
      kafka.createTopic(EVENTS, 12);
      kafka.createCommandsTopic(COMMANDS, 12);
      FleetProcess.writeSecrets(work);
      if (inventory) {
        writeInventory(kafka, gen);
      }
      long t0 = System.nanoTime();
      gen.heartbeatAll();
      System.out.printf("generator: %d heartbeats written in %d ms%n", vmCount, ms(t0));
      FleetProcess fleet = startFleet(kafka);
      fleet.awaitVms(vmCount, Duration.ofMinutes(3));
      report.firstLoad(Duration.ofNanos(System.nanoTime() - t0));
      if (closedHistory > 0) {
        ClosedHistory.write(gen, fleet, closedHistory, report);
      }
      List<FleetProcess> others = new ArrayList<>();
      if (instances > 1) {
        long j0 = System.nanoTime();
        for (int i = 2; i <= instances; i++) {
          others.add(
              FleetProcess.start(
                  repo, work, kafka.bootstrapServers(), "fleet-" + i, inventory, heap, List.of()));
        }
        for (FleetProcess o : others) {
          o.awaitVms(vmCount, Duration.ofMinutes(5));
        }
        report.joined(instances, Duration.ofNanos(System.nanoTime() - j0));
      }

      // Steady state: heartbeats every 60 s per VM, each event moving on every 20 s on average
      // (all at once with --maintenance-waves).
      // Daemon: a failure below ends the benchmark (and its processes, by their hooks).
      ScheduledExecutorService ticks = ClosedHistory.daemon("fleet-benchmark-ticks");
      Duration tick = Duration.ofMillis(100);
      ticks.scheduleAtFixedRate(
          () -> gen.heartbeatTick(tick), 0, tick.toMillis(), TimeUnit.MILLISECONDS);
      if (waves) {
        ticks.scheduleAtFixedRate(gen::maintenanceWave, 0, 20, TimeUnit.SECONDS);
      } else {
        ticks.scheduleAtFixedRate(gen::maintenanceTick, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
      }
      long sentBefore = gen.sent.get();
      java.util.concurrent.atomic.AtomicLong maxRss = new java.util.concurrent.atomic.AtomicLong();
      double[] maxHeap = {0};
      List<FleetProcess> measured = new ArrayList<>(List.of(fleet));
      measured.addAll(others);
      long[] rssEach = new long[measured.size()];
      ticks.scheduleAtFixedRate(
          () -> {
            for (int i = 0; i < measured.size(); i++) {
              try {
                long rss = ProcStat.rssKib(measured.get(i).pid());
                maxRss.accumulateAndGet(rss, Math::max);
                double heapUsed = measured.get(i).heapBytes();
                synchronized (maxHeap) {
                  rssEach[i] = Math.max(rssEach[i], rss);
                  maxHeap[0] = Math.max(maxHeap[0], heapUsed);
                }
              } catch (Exception e) {
                System.err.println("footprint sample of instance " + (i + 1) + " failed: " + e);
              }
            }
          },
          5,
          5,
          TimeUnit.SECONDS);
      ticks.awaitTermination(steadySeconds, TimeUnit.SECONDS); // the steady window itself
      String metrics = fleet.metrics();
      double rate = (gen.sent.get() - sentBefore) / (double) steadySeconds;
      report.steady(
          rate,
          waves,
          FleetProcess.quantile(metrics, "0.5"),
          FleetProcess.quantile(metrics, "0.99"),
          maxHeap[0],
          maxRss.get());
      if (apiSeconds > 0) {
        // The generator goes on beside it, and so does the sampling.
        FleetApiPhases.underLoad(fleet, gen, apiSeconds, report);
        synchronized (maxHeap) {
          report.footprintWithApi(maxHeap[0], maxRss.get());
        }
      }
      if (instances > 1) {
        synchronized (maxHeap) {
          report.rssEach(rssEach);
        }
      }
      report.rss();
      ticks.shutdownNow();
      ticks.awaitTermination(10, TimeUnit.SECONDS);
      gen.flush();

      // Restart: a new process rebuilds every view from the changelogs and view topics; alone, as
      // in a run of one instance.
      long closedAtCap = 0;
      for (FleetProcess o : others) {
        o.close();
        closedAtCap += o.closedAtAddressCap();
      }
      fleet.close();
      if (apiSeconds > 0) {
        // (read once it stopped: it writes what it had not said yet as it stops)
        report.closedAtCap(closedAtCap + fleet.closedAtAddressCap());
      }
      TopicBytes read = TopicBytes.of(kafka);
      long r0 = System.nanoTime();
      fleet = startFleet(kafka);
      fleet.awaitVms(vmCount, Duration.ofMinutes(3));
      report.rebuild(Duration.ofNanos(System.nanoTime() - r0), read);

      // One event of 1,000 VMs approved at once.
      String event = "BENCH-1000-0000-4000-8000-000000000001";
      gen.transition(
          event, gen.reservedVms(), dev.sebridge.track.TransitionType.SCHEDULED, "Scheduled");
      gen.flush();
      fleet.awaitScheduled(event, gen.reservedVms().size());
      FleetApiPhases.Approved approved =
          FleetApiPhases.approveAll(kafka, fleet, COMMANDS, event, gen.reservedVms().size());
      report.thousandCommands(approved.committed(), approved.answered());
      fleet.close();
    }
  }

  /** The service, as its own process, on the state of the run's first instance. */
  FleetProcess startFleet(EmbeddedKafkaBroker kafka) throws IOException {
    return FleetProcess.start(
        repo, work, kafka.bootstrapServers(), "fleet-1", inventory, heap, jvmOptions);
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

  static long ms(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }
}
