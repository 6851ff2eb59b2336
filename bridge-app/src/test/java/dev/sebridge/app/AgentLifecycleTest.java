package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.state.StateDirectory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** How the agent process starts and stops when things go wrong. */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class AgentLifecycleTest {
  static final SimVm VM = SimVm.of("life-0", "77777777-0000-4000-8000-000000000000");
  @TempDir Path dir;
  ImdsSimulator sim;

  @BeforeEach
  void start() {
    sim = ImdsSimulator.builder().vm(VM).build().start();
  }

  @AfterEach
  void stop() {
    sim.close();
  }

  @Test
  void aStartThatFailsReleasesWhatItHadTaken() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      StringWriter err = new StringWriter();
      int code =
          Main.execute(
              new PrintWriter(new StringWriter()),
              new PrintWriter(err),
              "run",
              "--set",
              "imds.endpoint=" + sim.baseUri(),
              "--set",
              "state.dir=" + dir.resolve("state"),
              "--set",
              "sinks=file",
              "--set",
              "sink.file.path=" + dir.resolve("out.jsonl"),
              "--set",
              "http.port=" + taken.getLocalPort());
      assertThat(code).as(err.toString()).isEqualTo(Main.EXIT_CONFIG);
      assertThat(err.toString()).contains("http.port").doesNotContain("\tat ");
    }
    // The agent that could not start released the state directory.
    StateDirectory.open(dir.resolve("state"), Clock.systemUTC()).close();
  }

  @Test
  void aShutdownThroughTheJvmHookWaitsForTheAgentToFlush() throws Exception {
    // SIGHUP is not trapped: the JVM runs its shutdown hooks, as on Windows for every stop.
    Path marker = dir.resolve("marker");
    AgentProcess agent =
        AgentProcess.runPolling(
            sim,
            Duration.ofSeconds(30),
            dir.resolve("logs"),
            List.of("-Dsebridge.test.shutdown-marker=" + marker),
            Map.of(),
            Map.of(
                "imds.endpoint",
                sim.baseUri().toString(),
                "state.dir",
                dir.resolve("state").toString(),
                "sinks",
                "file," + SlowShutdownSinkProvider.NAME,
                "sink.file.path",
                dir.resolve("out.jsonl").toString()));
    new ProcessBuilder("kill", "-HUP", Long.toString(agent.pid())).start().waitFor();
    agent.waitFor(Duration.ofSeconds(30));
    assertThat(marker).as(agent.stderr()).exists();
    assertThat(agent.stderr()).contains("sebridge agent stopped");
    await().atMost(Duration.ofSeconds(1)).until(() -> Files.exists(marker));
  }
}
