package dev.sebridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark run's progress lines, and the rollout tick benchmark at a small size. */
class ProgressAndRolloutTickTest {
  @Test
  void eachPhaseAndEveryTenthOfItsWorkIsPrinted() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Progress p = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2);
    p.phase("detection");
    for (int i = 0; i <= 200; i++) {
      p.progress("changes", i, 200);
    }
    p.phase("approval");
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).containsPattern("\\[00:0\\d\\] phase 1/2: detection");
    assertThat(out).contains("changes: 20/200").contains("changes: 200/200");
    assertThat(out.lines().filter(l -> l.contains("changes:")).count()).isEqualTo(11);
    assertThat(out).contains("phase 2/2: approval");
  }

  /** Every VM is released once and the rollout completes; the figure is the report's business. */
  @Test
  void aSmallRolloutTicksToItsEnd() {
    RolloutTickBenchmark.Result r = RolloutTickBenchmark.run(1_000, 10, "10%", 1);
    assertThat(r.vms()).isEqualTo(1_000);
    assertThat(r.waves()).isGreaterThanOrEqualTo(10);
    assertThat(r.tickMillis().count()).isEqualTo(r.ticks());
    assertThat(r.maxEntries()).isGreaterThanOrEqualTo(100);
  }

  /** The tick benchmark's two phases at a small size: the rollout's first wave goes out. */
  @Test
  void theTickBenchmarkReleasesAWaveAtASmallSize() throws Exception {
    FleetTickBenchmark.Result r = FleetTickBenchmark.run(2_000, 500, 100, 300, 10);
    assertThat(r.steadyPolicyTicks().count()).isEqualTo(60);
    assertThat(r.steadyRolloutTicks().count()).isEqualTo(30);
    assertThat(r.coldRolloutTicks().count()).isEqualTo(30);
    // 200 VMs a group, at most 10%: 20 of each group's 30 rollout VMs in the first wave.
    assertThat(r.approvals()).isEqualTo(200);
    // What a JVM prints is what the runner reads back, and the runs pool into the report.
    String line = FleetTickRuns.line(r);
    assertThat(line).startsWith(FleetTickRuns.RESULT).doesNotContain("\n");
    FleetTickBenchmark.Result back =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readValue(
                line.substring(FleetTickRuns.RESULT.length()), FleetTickBenchmark.Result.class);
    assertThat(back.steadyRolloutTicks().samples()).isEqualTo(r.steadyRolloutTicks().samples());
    FleetTickBenchmark.Result pooled = FleetTickRuns.pooled(List.of(r, back));
    assertThat(pooled.steadyRolloutTicks().count()).isEqualTo(60);
    assertThat(pooled.steadyPolicyTicks().count()).isEqualTo(120);
    assertThat(pooled.steadyRolloutTicks().percentile(99)).isEqualTo(r.steadyRolloutTicks().max());
    java.nio.file.Path report = java.nio.file.Files.createTempFile("fleet-report", ".md");
    FleetTickReport.write(report, pooled, List.of(r, back));
    assertThat(java.nio.file.Files.readString(report))
        .contains("waiting (60 ticks), p99")
        .contains("All of it in 2 JVMs")
        .contains(String.format("| 2 | %.1f ms |", back.steadyPolicyTicks().percentile(99)));
    java.nio.file.Files.delete(report);
  }
}
