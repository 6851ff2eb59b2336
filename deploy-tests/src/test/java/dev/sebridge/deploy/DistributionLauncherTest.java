package dev.sebridge.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built distribution (bridge-app/target/dist) as an installed one runs: the agent on lib/ alone
 * (no jar of the demo's broker or the fleet service), and the demo and the fleet service with
 * lib/server/ added by bin/sebridge.
 */
class DistributionLauncherTest {
  static final Path DIST = Path.of("..", "bridge-app", "target", "dist");
  static final Path SEBRIDGE = DIST.resolve("bin").resolve("sebridge");

  @TempDir Path dir;

  @Test
  void theAgentsClassPathHoldsNoJarOfTheBrokerOrTheFleetService() throws Exception {
    List<String> agent = jars(DIST.resolve("lib"));
    List<String> server = jars(DIST.resolve("lib").resolve("server"));
    assertThat(agent)
        .anyMatch(j -> j.startsWith("kafka-clients-"))
        .anyMatch(j -> j.startsWith("azure-messaging-eventhubs-"))
        .anyMatch(j -> j.startsWith("bridge-app-"))
        .noneMatch(j -> j.startsWith("kafka_2.13-") || j.startsWith("kafka-streams-"))
        .noneMatch(j -> j.startsWith("scala-") || j.startsWith("fleet-"));
    assertThat(server)
        .anyMatch(j -> j.startsWith("kafka_2.13-"))
        .anyMatch(j -> j.startsWith("kafka-streams-"))
        .anyMatch(j -> j.startsWith("fleet-"));
    assertThat(agent).doesNotContainAnyElementsOf(server);
  }

  @Test
  void theAgentRunsOnLibAlone() throws Exception {
    SimVm vm = SimVm.of("dist-0", "dddddddd-0000-4000-8000-000000000000");
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(vm).build().start()) {
      Path out = dir.resolve("out.jsonl");
      Process p =
          launch(
              "run",
              "--set",
              "imds.endpoint=" + sim.baseUri(),
              "--set",
              "sinks=file",
              "--set",
              "sink.file.path=" + out,
              "--set",
              "state.dir=" + dir.resolve("state"),
              "--set",
              "imds.poll-interval=250ms",
              "--set",
              "http.port=0");
      try {
        sim.addEvent(EventSpec.scheduled("Freeze", List.of(vm.name())));
        try {
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () ->
                      !p.isAlive()
                          || Files.exists(out)
                              && Files.readString(out).contains("\"transition\":\"Scheduled\""));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          throw new AssertionError(
              "no Scheduled envelope; output: "
                  + (Files.exists(out) ? Files.readString(out) : "(none)")
                  + "; log: "
                  + log(),
              e);
        }
        assertThat(p.isAlive()).as(log()).isTrue();
      } finally {
        p.destroy();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  /** The fleet demo needs both: the embedded broker and the fleet service (Kafka Streams). */
  @Test
  void theFleetDemoFindsTheBrokerAndKafkaStreamsInLibServer() throws Exception {
    Process p = launch("demo", "--fleet");
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("demo finished").isTrue();
    String log = log();
    assertThat(p.exitValue()).as(log).isZero();
    assertThat(log)
        .contains("an embedded Kafka broker, and the fleet service on http://")
        .doesNotContain("NoClassDefFoundError")
        .doesNotContain("ClassNotFoundException");
  }

  private Process launch(String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("sh", SEBRIDGE.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("launcher.log").toFile());
    return pb.start();
  }

  private String log() throws Exception {
    Path log = dir.resolve("launcher.log");
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  private static List<String> jars(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).toList();
    }
  }
}
