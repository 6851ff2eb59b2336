package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.config.Configuration;
import dev.sebridge.outbox.Outbox;
import dev.sebridge.outbox.OutboxSettings;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.state.StateDirectory;
import dev.sebridge.testing.EnvelopeFile;
import dev.sebridge.testing.EventSinkContractTest;
import dev.sebridge.testing.InMemorySink;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the agent exposes on /metrics, checked by Prometheus' own {@code promtool check metrics}
 * (Debian's prometheus package; .ci/run installs it, and the test fails, never skips, without it):
 * a scrape after an approval and a heartbeat, so the metrics created on first use exist, and the
 * outbox's after an overflow, whose counters end in {@code _total}.
 */
class PromtoolTest {
  static final String PROMTOOL = "/usr/bin/promtool";
  static final SimVm VM = SimVm.of("WestNO_0", "11111111-0000-4000-8000-000000000000");
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aScrapeAfterAnApprovalAndAHeartbeatPassesPromtool() throws Exception {
    int port;
    try (var s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start()) {
      Map<String, String> m = new HashMap<>();
      m.put("imds.endpoint", sim.baseUri(VM.name()).toString());
      m.put("imds.poll-interval", "200ms");
      m.put("state.dir", dir.resolve("state").toString());
      m.put("sinks", "file");
      m.put("sink.file.path", dir.resolve("out.jsonl").toString());
      m.put("http.port", Integer.toString(port));
      m.put("heartbeat.interval", "1s");
      m.put("approval.policy", "user-initiated");
      EnvelopeFile out = new EnvelopeFile(dir.resolve("out.jsonl"));
      try (Agent agent = Agent.builder(Configuration.of(m)).build().start()) {
        sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM.name())).withSource("User"));
        await()
            .atMost(WAIT)
            .until(
                () ->
                    out.read().stream()
                            .anyMatch(e -> type(e).equals("dev.sebridge.approval.result.v1"))
                        && out.read().stream()
                            .anyMatch(e -> type(e).equals("dev.sebridge.agent.heartbeat.v1")));
        String scrape =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(scrape)
            .contains("sebridge_commands_total{")
            .contains("sebridge_outbox_overflows_total")
            .contains("sebridge_outbox_shed_total");
        assertPromtoolAccepts(scrape);
      }
    }
  }

  @Test
  void theOutboxCountersAfterAnOverflowPassPromtool() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InMemorySink dead = new InMemorySink("dead").down(true);
    OutboxSettings tiny =
        new OutboxSettings(8 * 1024, 4 * 1024, 10, Duration.ofSeconds(5), Duration.ofMillis(200));
    Outbox o =
        new Outbox(
            StateDirectory.open(dir.resolve("state"), Clock.systemUTC()),
            List.of(dead),
            tiny,
            Clock.systemUTC(),
            registry);
    try {
      var envs = EventSinkContractTest.envelopes("vm-1", 30);
      o.publish(envs.subList(0, 20));
      o.publishSheddable(envs.subList(20, 21));
      o.publish(envs.subList(21, 30));
      String scrape = registry.scrape();
      assertThat(scrape)
          .contains("# TYPE sebridge_outbox_overflows_total counter")
          .contains("sebridge_outbox_overflows_total 9.0")
          .contains("sebridge_outbox_shed_total 1.0");
      assertPromtoolAccepts(scrape);
    } finally {
      o.close(Duration.ofSeconds(1));
    }
  }

  @Test
  void promtoolRefusesWhatWeNoLongerSend() throws Exception {
    assertThat(
            promtool(
                "# HELP sebridge_commands_total \n# TYPE sebridge_commands_total counter\n"
                    + "sebridge_commands_total{outcome=\"accepted\"} 1.0\n"))
        .as("the check can fail")
        .isNotEqualTo(0);
  }

  private static String type(com.fasterxml.jackson.databind.JsonNode e) {
    return e.get("type").asText();
  }

  static void assertPromtoolAccepts(String scrape) throws Exception {
    int exit = promtool(scrape);
    assertThat(exit).as("promtool check metrics on:%n%s", scrape).isZero();
  }

  /** promtool's exit code; its findings go to the test's output. */
  static int promtool(String scrape) throws Exception {
    assertThat(new File(PROMTOOL).canExecute())
        .as("promtool is required (apt-get install prometheus; .ci/run does)")
        .isTrue();
    Process p = new ProcessBuilder(PROMTOOL, "check", "metrics").redirectErrorStream(true).start();
    p.getOutputStream().write(scrape.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String findings = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    System.out.println("promtool check metrics: exit " + p.exitValue() + "\n" + findings);
    return p.exitValue();
  }
}
