package dev.sebridge.benchmarks;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** The "Tick at scale" section of FLEET-REPORT.md, and the signer the tick benchmark uses. */
final class FleetTickReport {
  private FleetTickReport() {}

  /**
   * Writes the report's "Tick at scale" section, replacing the one there: the verdicts on {@code
   * r}, the runs pooled ({@link FleetTickRuns}); each run's figures below them.
   */
  static void write(Path report, FleetTickBenchmark.Result r, List<FleetTickBenchmark.Result> runs)
      throws java.io.IOException {
    double p99 = r.steadyPolicyTicks().percentile(99);
    double rp99 = r.steadyRolloutTicks().percentile(99);
    String text =
        String.format(
            "%s%n%nWritten by `benchmarks/run-fleet-tick.sh` on %s (%d CPUs): the fleet's own"
                + " topology in Kafka Streams' test driver (one thread, the stores as in"
                + " production), %,d VM views and %,d requests of earlier rollouts (kept a month,"
                + " their events gone from the views), a sixtieth of the VMs heartbeating between two"
                + " ticks"
                + " (applied to the global store outside the timed window, as the global thread"
                + " does; taken in by the tick). A tick is the rollouts task's punctuation, every"
                + " second (the ledger moved on, each active rollout stepped, the policies' pass, the"
                + " ledger written), as its metric times it (`sebridge_fleet_rollouts_tick_seconds`);"
                + " the stream thread's whole second beside it adds whatever else is due then (the"
                + " per-minute retention scans; not the partitioned processors' envelopes: the views"
                + " are written straight onto their topics)."
                + " Signing does no cryptography here (see \"sign and produce 1,000 commands\""
                + " above). The rollout fits its first wave whole (100 of each scale set's 1,000"
                + " live VMs may be out), so its waiting ticks hold all of it released; the measured"
                + " ticks are the second %d it waits (the first %d run code the JIT has not"
                + " compiled yet: no rollout was stepped before in this JVM). All of it in %d JVMs"
                + " one after the other, their ticks pooled (one JVM's ticks vary with where its"
                + " data landed in memory and what the JIT made of the step; each JVM's figures are"
                + " below). Loading the views took at most %.1f s; heap after it all, after a GC"
                + " (-Xmx1g): at most %d MiB.%n%n"
                + "| measure | target | measured | |%n|---|---|---|---|%n"
                + "| policy pass over %,d open events (%d ticks), p99 | <= 50 ms | %.1f ms | %s |%n"
                + "| the first tick: the view index read whole, every event decided | | %.1f ms | |%n"
                + "| rollout of %,d VMs in %d groups, waiting (%d ticks), p99 | <= 100 ms | %.1f ms"
                + " | %s |%n"
                + "| the same ticks, p50 | | %.1f ms | |%n"
                + "| the stream thread's whole seconds around them, p99 | | %.1f ms | |%n"
                + "| of the same ticks, those whose second a GC pause fell in (the heartbeats'"
                + " allocation included; `GarbageCollectorMXBean`) | | %d, up to %.0f ms of pause"
                + " | |%n"
                + "| the others, p99 | | %.1f ms | |%n"
                + "| its %d waiting ticks before those, while the JIT compiles the step, p99 | |"
                + " %.1f ms | |%n"
                + "| its first tick, releasing a wave (%,d approvals decided and signed) | | %.1f ms"
                + " | |%n",
            FleetTickBenchmark.HEADING,
            Instant.now(),
            Runtime.getRuntime().availableProcessors(),
            r.vms(),
            r.history(),
            FleetTickBenchmark.WAITING,
            FleetTickBenchmark.WAITING,
            runs.size(),
            r.loadSeconds(),
            r.heapMiB(),
            r.open(),
            r.steadyPolicyTicks().count(),
            p99,
            p99 <= 50 ? "PASS" : "FAIL",
            r.firstPolicyPassMs(),
            r.rollout(),
            r.groups(),
            r.steadyRolloutTicks().count(),
            rp99,
            rp99 <= 100 ? "PASS" : "FAIL",
            r.steadyRolloutTicks().percentile(50),
            r.steadySeconds().percentile(99),
            paused(r),
            r.steadyGcPauses().percentile(100),
            unpaused(r).percentile(99),
            r.coldRolloutTicks().count(),
            r.coldRolloutTicks().percentile(99),
            r.approvals(),
            r.releaseTickMs());
    StringBuilder each =
        new StringBuilder(
            String.format(
                "%n| JVM | policy pass p99 | waiting tick p50 | waiting tick p99 | while the JIT"
                    + " compiles, p99 | releasing tick |%n|---|---|---|---|---|---|%n"));
    for (int i = 0; i < runs.size(); i++) {
      FleetTickBenchmark.Result x = runs.get(i);
      each.append(
          String.format(
              "| %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms |%n",
              i + 1,
              x.steadyPolicyTicks().percentile(99),
              x.steadyRolloutTicks().percentile(50),
              x.steadyRolloutTicks().percentile(99),
              x.coldRolloutTicks().percentile(99),
              x.releaseTickMs()));
    }
    RolloutTickBenchmark.replaceSection(report, FleetTickBenchmark.HEADING, text + each);
  }

  /** How many of the measured waiting ticks a GC pause fell in. */
  static int paused(FleetTickBenchmark.Result r) {
    return (int) r.steadyGcPauses().samples().stream().filter(ms -> ms > 0).count();
  }

  /** The measured waiting ticks no GC pause fell in. */
  static Stats unpaused(FleetTickBenchmark.Result r) {
    List<Double> ticks = r.steadyRolloutTicks().samples();
    List<Double> gc = r.steadyGcPauses().samples();
    Stats out = new Stats();
    for (int i = 0; i < ticks.size(); i++) {
      if (gc.get(i) == 0) {
        out.add(ticks.get(i));
      }
    }
    return out;
  }

  /** A signer that signs nothing: the commands are produced, their cost is not in the figure. */
  static final class NoCryptography implements JWSSigner {
    @Override
    public Base64URL sign(com.nimbusds.jose.JWSHeader header, byte[] input) {
      return Base64URL.encode(new byte[64]);
    }

    @Override
    public Set<JWSAlgorithm> supportedJWSAlgorithms() {
      return Set.of(JWSAlgorithm.ES256);
    }

    @Override
    public JCAContext getJCAContext() {
      return new JCAContext();
    }
  }
}
