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

  /**
   * {@code sebridge demo --fleet}, from the built distribution, does what the README says: it needs
   * the embedded broker and the fleet service (Kafka Streams) from lib/server, and the local Azure
   * from the simulator. (One run of the demo in the suite: this one.)
   */
  @Test
  void
      theFleetDemoRollsOutTheRebootsInWavesAndThePoliciesApproveTheRestAndAzureTheVmsWithoutAnAgent()
          throws Exception {
    Process p = launch("demo", "--fleet", "--timeout", "120");
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("demo finished").isTrue();
    String o = log();
    assertThat(p.exitValue()).as(o).isZero();
    assertThat(o)
        .doesNotContain("NoClassDefFoundError")
        .doesNotContain("ClassNotFoundException")
        .contains("24 VMs in zones 1-3")
        .contains("a local Azure (Resource Graph, the Maintenance API, Event Grid), and the fleet")
        .contains("$ sebridge fleet events --open --type Reboot")
        .containsPattern("Reboot +Platform .* 1 +scheduled 1 +1:1")
        .contains("12 event(s), at most 2 unavailable per zone")
        .containsPattern("wave 1 at \\S+: ")
        .containsPattern("wave 2 at \\S+: ")
        .containsPattern("rollout \\S+ completed: 12 back")
        .contains("2 command(s) for event")
        .containsPattern("Freeze +Platform .* 3 +completed 3")
        .containsPattern("Redeploy +User .* 1 +completed 1")
        // the VMs without an agent: coverage, and a rollout through the Maintenance API
        .contains("24 VMs; 22 with a live agent, 0 silent, 2 without an agent")
        .contains("2 event(s), at most 1 unavailable per zone")
        .containsPattern("running +sre-oncall@demo +2 completed +1 ");
    assertThat(o.split("azure completed", -1)).as("Azure's word on both").hasSize(3);
    assertThat(o.split("accepted +accepted", -1)).hasSize(3);
    // never more than 2 VMs of a zone in one wave (each wave starts only when the last is back)
    for (String wave : o.lines().filter(l -> l.trim().startsWith("wave ")).toList()) {
      assertThat(wave).as("every VM of a wave with its group").doesNotContain("(-)");
      for (String zone : List.of("zone=1", "zone=2", "zone=3")) {
        assertThat(wave.split(java.util.regex.Pattern.quote(zone), -1).length - 1)
            .as(wave)
            .isLessThanOrEqualTo(2);
      }
    }
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
