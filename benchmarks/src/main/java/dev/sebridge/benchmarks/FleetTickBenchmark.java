package dev.sebridge.benchmarks;

import com.nimbusds.jose.JWSAlgorithm;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.streams.CommandIssuer;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.JsonSerde;
import dev.sebridge.fleet.streams.Retention;
import dev.sebridge.fleet.streams.Topics;
import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The rollouts task's tick in the fleet's own topology (Kafka Streams' test driver, one thread, the
 * stores as in production), at 100,000 VMs: what a second of wall clock costs the stream thread.
 * The views are written onto the view topics as the partitioned processors write them; between two
 * ticks a sixtieth of the VMs' views change (a heartbeat a minute), which the global store applies
 * outside the timed window (the global thread does it beside the stream thread) and the tick takes
 * in ({@code ViewIndex}). Commands are signed by a signer that does no cryptography: signing is
 * measured by the fleet benchmark ("sign and produce 1,000 commands").
 *
 * <p>Beside the VMs, 100,000 requests of earlier rollouts, kept a month, whose events are gone from
 * the views: what a tick reads must not grow with them.
 *
 * <p>Phase 1, the policies: 5,000 open one-VM events a {@code never} rule decides; the first tick
 * (which also reads the views whole into the index) decides them all, the next 60 find nothing new.
 * Phase 2, a rollout of 10,000 one-VM events in 100 groups (scale sets of 1,000 live VMs), at most
 * 10% each: 100 a group may be out, so the first tick releases the whole rollout (10,000 approvals
 * decided and audited), and the next 30 wait for its 10,000 VMs to report, the ledger holding
 * 10,000 entries: the heaviest waiting a rollout of this size has.
 *
 * <p>Not in the figure: the partitioned processors' work on the same thread (envelopes, the silence
 * check), and the index's 10-minute whole read (the first tick shows what one costs).
 *
 * <p>Usage: {@code FleetTickBenchmark [--vms 100000] [--history 100000] [--open 5000] [--rollout
 * 10000] [--groups 100] [--json]}: one JVM's run, its figures also on one line for {@link
 * FleetTickRuns} with {@code --json}, which runs several and writes the report's section "Tick at
 * scale".
 */
public final class FleetTickBenchmark implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  static final Topics TOPICS = new Topics("fleet", "envelopes", "commands", "approvals");
  static final String HEADING = "## Tick at scale";

  /** Waiting ticks before the measured ones, and measured. */
  static final int WAITING = Integer.getInteger("fleet.tick.waiting", 30);

  /**
   * Closed one-VM events in the views besides (a day of a 100,000-VM fleet's is about 160,000, kept
   * {@code fleet.closed-retention}): what they cost the heap. None by default.
   */
  static final int CLOSED = Integer.getInteger("fleet.tick.closed", 0);

  /**
   * Whether each closed event was approved through sebridge an hour before it closed (a request
   * that sent its VM a command): the ledger then looks at it every step for a day.
   */
  static final boolean CLOSED_REQUESTED = Boolean.getBoolean("fleet.tick.closed.requested");

  record Result(
      int vms,
      int history,
      int open,
      int rollout,
      int groups,
      double loadSeconds,
      long heapMiB,
      double firstPolicyPassMs,
      Stats steadyPolicyTicks,
      double releaseTickMs,
      int approvals,
      Stats coldRolloutTicks,
      Stats steadyRolloutTicks,
      Stats steadySeconds,
      Stats steadyGcPauses) {}

  /**
   * One second of wall clock on the stream thread: all of it (every punctuation due, the per-minute
   * retention scans included), and the rollouts task's tick within it (its metric, {@code
   * sebridge_fleet_rollouts_tick_seconds}), in ms.
   *
   * @param gcPauses milliseconds the collectors paused the JVM during the second ({@link
   *     GcPauses#since})
   */
  record Second(double whole, double rollouts, double gcPauses) {}

  private final TopologyTestDriver driver;
  private final TestInputTopic<String, VmView> vmViews;
  private final TestInputTopic<String, EventView> eventViews;
  private final TestInputTopic<String, RequestView> requestViews;
  private final TestInputTopic<String, RolloutCommand> rollouts;
  private final org.apache.kafka.streams.TestOutputTopic<String, byte[]> audit;
  private Instant now = T0;
  private int groups = 100;

  FleetTickBenchmark() {
    Policies policies = FleetTickFixtures.neverFreeze();
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "fleet-tick-bench");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver =
        new TopologyTestDriver(
            FleetTopology.build(
                TOPICS,
                new CommandIssuer(
                    new CommandSigner(
                        new FleetTickReport.NoCryptography(), JWSAlgorithm.ES256, "k", "fleet"),
                    Duration.ofMinutes(5)),
                3,
                Retention.closedEvents(Duration.ofHours(24)),
                new TopologyObserver() {

                  @Override
                  public void rolloutsTicked(Duration took) {
                    ticked = took.toNanos() / 1e6;
                  }
                },
                policies,
                Duration.ofSeconds(1),
                () -> 0,
                dev.sebridge.fleet.streams.ReplayGate.NONE,
                dev.sebridge.fleet.streams.ViewsGate.NONE,
                dev.sebridge.fleet.streams.Membership.AGENTS),
            p,
            T0);
    vmViews =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.VIEWS_VMS),
            new StringSerializer(),
            new JsonSerde<>(VmView.class).serializer());
    eventViews =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.VIEWS_EVENTS),
            new StringSerializer(),
            JsonSerde.eventViews().serializer());
    requestViews =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.VIEWS_REQUESTS),
            new StringSerializer(),
            new JsonSerde<>(RequestView.class).serializer());
    rollouts =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.ROLLOUTS),
            new StringSerializer(),
            new JsonSerde<>(RolloutCommand.class).serializer());
    audit =
        driver.createOutputTopic(
            TOPICS.approvals(),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
  }

  public static void main(String[] args) throws Exception {
    int vms = 100_000;
    int history = 100_000;
    int open = 5_000;
    int rollout = 10_000;
    int groups = 100;
    boolean json = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--vms" -> vms = Integer.parseInt(args[++i]);
        case "--history" -> history = Integer.parseInt(args[++i]);
        case "--open" -> open = Integer.parseInt(args[++i]);
        case "--rollout" -> rollout = Integer.parseInt(args[++i]);
        case "--groups" -> groups = Integer.parseInt(args[++i]);
        case "--json" -> json = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Result r = run(vms, history, open, rollout, groups);
    System.out.printf(
        "fleet tick, %,d VMs, %,d past requests: loaded in %.1f s, heap %d MiB; policy pass over"
            + " %,d open events:"
            + " first %.1f ms, then %s; rollout of %,d VMs in %d groups: release tick %.1f ms"
            + " (%,d approvals), then %s while the JIT compiles, then %s (the stream thread's"
            + " whole second: %s; %d of these ticks met a GC pause, %.0f ms at most)%n",
        r.vms(),
        r.history(),
        r.loadSeconds(),
        r.heapMiB(),
        r.open(),
        r.firstPolicyPassMs(),
        r.steadyPolicyTicks().summary(),
        r.rollout(),
        r.groups(),
        r.releaseTickMs(),
        r.approvals(),
        r.coldRolloutTicks().summary(),
        r.steadyRolloutTicks().summary(),
        r.steadySeconds().summary(),
        FleetTickReport.paused(r),
        r.steadyGcPauses().percentile(100));
    if (json) {
      System.out.println(FleetTickRuns.line(r));
    }
  }

  /** Runs both phases. */
  public static Result run(int vms, int history, int open, int rollout, int groups) {
    try (FleetTickBenchmark b = new FleetTickBenchmark()) {
      return b.phases(vms, history, open, rollout, groups);
    }
  }

  private Result phases(int vms, int history, int open, int rollout, int groups) {
    this.groups = groups;
    long start = System.nanoTime();
    for (int i = 0; i < vms; i++) {
      vmViews.pipeInput(FleetTickFixtures.vmId(i), FleetTickFixtures.vm(i, groups, now), now);
    }
    // A month of earlier rollouts: requests kept (fleet.history-retention), their events long gone.
    for (int i = 0; i < history; i++) {
      requestViews.pipeInput("past-" + i, FleetTickFixtures.pastRequest(i, vms), now);
    }
    for (int i = 0; i < CLOSED; i++) {
      closedEvent(i, vms, groups);
    }
    List<String> freezes = new ArrayList<>();
    for (int i = 0; i < open; i++) {
      freezes.add(event("F-" + i, "Freeze", i, groups));
    }
    double load = (System.nanoTime() - start) / 1e9;
    double first = tick(vms).whole();
    Stats policy = new Stats();
    for (int t = 0; t < 60; t++) {
      policy.add(tick(vms).rollouts());
    }
    List<String> reboots = new ArrayList<>();
    for (int i = 0; i < rollout; i++) {
      reboots.add(event("R-" + i, "Reboot", open + i, groups));
    }
    tick(vms); // the new events decided ("no rule matched"), not timed with the rollout
    rollouts.pipeInput(
        "bench",
        new RolloutCommand(
            "bench",
            RolloutCommand.CREATE,
            new RolloutSpec(
                reboots, "10%", List.of("scaleSet"), Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "bench",
            "bench",
            now,
            "api"),
        now);
    audit.readValuesToList();
    double release = tick(vms).whole();
    // The approvals the rollout decided in this tick, one key each.
    int approvals = (int) audit.readKeyValuesToList().stream().map(kv -> kv.key).distinct().count();
    // The first waiting ticks run code the JIT has not compiled yet (no rollout stepped before in
    // this JVM): reported apart; the measure is the next 30, as a service running for a while has.
    Stats cold = new Stats();
    for (int t = 0; t < WAITING; t++) {
      cold.add(tick(vms).rollouts());
    }
    Stats steady = new Stats();
    Stats seconds = new Stats();
    Stats gc = new Stats();
    for (int t = 0; t < WAITING; t++) {
      Second s = tick(vms);
      steady.add(s.rollouts());
      seconds.add(s.whole());
      gc.add(s.gcPauses());
    }
    System.gc();
    long heap = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
    return new Result(
        vms, history, open, rollout, groups, load, heap, first, policy, release, approvals, cold,
        steady, seconds, gc);
  }

  private int heartbeats;
  private double ticked; // the rollouts task's last tick, in ms, as the topology reports it

  /** One second: a sixtieth of the VMs heartbeat (not timed), then the second (timed). */
  private Second tick(int vms) {
    now = now.plusSeconds(1);
    for (int i = 0; i < vms / 60; i++) {
      int vm = heartbeats++ % vms;
      vmViews.pipeInput(FleetTickFixtures.vmId(vm), FleetTickFixtures.vm(vm, groups, now), now);
    }
    ticked = Double.NaN;
    GcPauses before = GcPauses.sofar();
    long start = System.nanoTime();
    driver.advanceWallClockTime(Duration.ofSeconds(1));
    double whole = (System.nanoTime() - start) / 1e6;
    double paused = GcPauses.sofar().since(before);
    if (Double.isNaN(ticked)) {
      throw new IllegalStateException("the rollouts task did not tick in this second");
    }
    return new Second(whole, ticked, paused);
  }

  private String event(String id, String type, int vm, int groups) {
    eventViews.pipeInput(
        id.toLowerCase(Locale.ROOT),
        FleetTickFixtures.event(id, type, "planned", vm, groups, T0.plusSeconds(900), T0, null),
        now);
    return id;
  }

  /**
   * A one-VM event that closed an hour ago, of VM {@code i} (modulo the fleet); with {@link
   * #CLOSED_REQUESTED}, approved through sebridge an hour before.
   */
  private void closedEvent(int i, int vms, int groups) {
    String id = FleetTickFixtures.closedId(i);
    Instant closed = now.minus(Duration.ofHours(1));
    eventViews.pipeInput(
        id.toLowerCase(Locale.ROOT), FleetTickFixtures.closedEvent(i, vms, groups, closed), now);
    if (CLOSED_REQUESTED) {
      String vmId = FleetTickFixtures.vmId(i % vms);
      requestViews.pipeInput(
          "closed-" + i,
          FleetTickFixtures.accepted(
              "closed-" + i, id, vmId, closed.minus(Duration.ofHours(1)), "host update", "api"),
          now);
    }
  }

  @Override
  public void close() {
    driver.close();
  }
}
