package dev.sebridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A few iterations of every benchmark, so the harness cannot rot. Targets are not checked here
 * (timing on a loaded CI machine says nothing); the full run is {@code benchmarks/run.sh}.
 */
class BenchmarksSmokeTest {
  @TempDir Path work;

  @Test
  void everyBenchmarkRunsAndReports() throws Exception {
    Path repo = Path.of(System.getProperty("basedir", ".")).resolve("..").normalize();
    assertThat(repo.resolve("bridge-app/target/dist/lib"))
        .as("the distribution is built before this module")
        .isDirectory();
    Benchmarks b = new Benchmarks(repo, work, 3, 3, 3, 1, false);
    b.flood = 500;
    b.runAll();
    String report = b.report.markdown(3, 3, 3, 1, false);
    Files.writeString(
        Path.of(System.getProperty("basedir", ".")).resolve("target/SMOKE-REPORT.md"), report);
    assertThat(report)
        .contains("| detection p99 at 1000 ms |")
        .contains("| detection p99 at 250 ms |")
        .contains("| approval p99 |")
        .contains("| rejections per second on one core |")
        .contains("garbage records | <= 10 s |")
        .containsPattern(
            "\\| RSS \\(max\\) above the JVM-and-Kafka-producer floor of the same run \\| <= 8 MiB"
                + " \\| [+-][0-9.]+ MiB \\(agent [1-9][0-9.]*, floor [1-9][0-9.]*; PSS [+-][0-9.]+"
                + " MiB")
        .containsPattern("\\| the JVM alone: an idle `main` \\| [1-9]")
        .containsPattern("\\| the JVM and one Kafka producer sending a record a second \\| [1-9]")
        .containsPattern(
            "\\| the same, with every footprint setting tried and not kept: `[^`]+` \\| [1-9]")
        .containsPattern("\\| the same and no JIT at all \\(`-Xint`\\)[^|]* \\| [1-9]")
        .containsPattern(
            "\\| the agent \\(Kafka sink, 1 poll/s\\) with every footprint setting tried and not"
                + " kept \\| [1-9]")
        .contains("| CPU |")
        .containsPattern("### CPU once the JIT has settled[^#]+- sebridge: CPU [0-9.]+ %")
        .contains("| start to first poll (p50) |")
        .contains("missed 0")
        .contains("failed 0")
        .doesNotContain("NaN");
  }
}
