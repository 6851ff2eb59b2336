package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.loganalytics.testing.LogsIngestionEndpoint;
import dev.sebridge.sink.loganalytics.testing.StreamDeclaration;
import dev.sebridge.testing.EnvelopeFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Simulator -> `sebridge run` (a real process, managed identity from the simulator's IMDS token
 * endpoint) -> the Logs Ingestion API test endpoint over HTTPS: every transition arrives as a row
 * of the declared columns, also across an outage and throttling.
 */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class LogAnalyticsEndToEndTest {
  static final Duration WAIT = Duration.ofSeconds(90);
  static final String RULE = "dcr-00112233445566778899aabbccddeeff";
  static final String STREAM = "Custom-VmScheduledEvents_CL";
  static final String UAMI = "7d1f3c2a-1111-4222-8333-944445555666";
  static final SimVm VM = SimVm.of("la-vm-0", "44444444-0000-4000-8000-000000000000");

  @TempDir Path dir;
  ImdsSimulator sim;
  LogsIngestionEndpoint endpoint;
  final List<AgentProcess> agents = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    sim = ImdsSimulator.builder().vm(VM).build().start();
    endpoint = LogsIngestionEndpoint.start(RULE, STREAM);
  }

  @AfterEach
  void stop() {
    agents.forEach(AgentProcess::close);
    endpoint.close();
    sim.close();
  }

  AgentProcess agent() throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("imds.endpoint", sim.baseUri(VM.name()).toString());
    settings.put("state.dir", dir.resolve("state").toString());
    settings.put("sinks", "loganalytics,file");
    settings.put("sink.file.path", dir.resolve("out.jsonl").toString());
    settings.put("sink.loganalytics.endpoint", endpoint.endpoint().toString());
    settings.put("sink.loganalytics.rule-id", RULE);
    settings.put("sink.loganalytics.client-id", UAMI);
    settings.put("publish.max-backoff", "2s");
    settings.put("publish.warn-after", "5s");
    AgentProcess p =
        AgentProcess.runPolling(
            sim,
            WAIT,
            dir.resolve("logs"),
            List.of(
                "-Djavax.net.ssl.trustStore=" + endpoint.trustStore(),
                "-Djavax.net.ssl.trustStorePassword=" + LogsIngestionEndpoint.TRUST_STORE_PASSWORD,
                "-Djavax.net.ssl.trustStoreType=PKCS12"),
            // Where azure-identity (MSAL) looks for IMDS instead of 169.254.169.254.
            Map.of("AZURE_POD_IDENTITY_AUTHORITY_HOST", "http://127.0.0.1:" + sim.port()),
            settings);
    agents.add(p);
    return p;
  }

  /** Waits until the agent has been served the simulator's current document. */
  void settle() {
    AgentProcess.awaitServed(sim, WAIT, List.of(VM.name()));
  }

  /**
   * The transition rows as "EventId:Transition", deduplicated by EnvelopeId (a duplicate must be
   * the identical row), each checked against the declaration and the envelope the file sink wrote.
   */
  List<String> transitionRows(int expected) throws Exception {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                endpoint.rows().stream()
                        .filter(r -> r.get("Transition") != null)
                        .map(r -> r.get("EnvelopeId").asText())
                        .distinct()
                        .count()
                    >= expected);
    StreamDeclaration declared = StreamDeclaration.fromRepository();
    Map<String, JsonNode> fileById = new HashMap<>();
    for (JsonNode e : new EnvelopeFile(dir.resolve("out.jsonl")).read()) {
      fileById.put(e.get("id").asText(), e);
    }
    Map<String, JsonNode> seen = new HashMap<>();
    List<String> out = new ArrayList<>();
    for (JsonNode row : endpoint.rows()) {
      assertThat(declared.problems(row)).as(row.toString()).isEmpty();
      String id = row.get("EnvelopeId").asText();
      JsonNode first = seen.putIfAbsent(id, row);
      if (first != null) {
        assertThat(row).as("a duplicate must be the same row").isEqualTo(first);
        continue;
      }
      assertThat(row.get("Envelope")).isEqualTo(fileById.get(id));
      assertThat(row.get("VmId").asText()).isEqualTo(VM.vmId());
      if (row.get("Transition") != null) {
        out.add(row.get("ScheduledEventId").asText() + ":" + row.get("Transition").asText());
      }
    }
    return out;
  }

  @Test
  void everyTransitionBecomesARowWithTheManagedIdentitysToken() throws Exception {
    AgentProcess agent = agent();
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())).withId("LF-1"));
    sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM.name())).withId("LR-1"));
    settle();
    sim.startEvent("LF-1");
    settle();
    sim.cancelEvent("LR-1");
    settle();
    sim.addEvent(
        EventSpec.scheduled("Redeploy", List.of(VM.name())).asHardwareFailure().withId("LH-1"));
    settle();
    sim.completeEvent("LF-1");
    sim.completeEvent("LH-1");
    assertThat(transitionRows(7))
        .containsExactly(
            "LF-1:Scheduled",
            "LR-1:Scheduled",
            "LF-1:Started",
            "LR-1:Canceled",
            "LH-1:Started",
            "LF-1:Completed",
            "LH-1:Completed");
    // The token came from IMDS for the user-assigned identity and the Monitor audience.
    assertThat(sim.tokenRequests()).isNotEmpty();
    ImdsSimulator.TokenRequest token = sim.tokenRequests().get(0);
    assertThat(token.clientId()).isEqualTo(UAMI);
    assertThat(token.resource()).startsWith("https://monitor.azure.com");
    assertThat(endpoint.calls())
        .allSatisfy(c -> assertThat(c.authorization()).startsWith("Bearer sim-mi.la-vm-0." + UAMI));
    // The token never reaches the logs.
    assertThat(agent.stderr() + agent.stdout()).doesNotContain("sim-mi.");
  }

  @Test
  void anOutageAndThrottlingLoseNothing() throws Exception {
    AgentProcess agent = agent();
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())).withId("LO-1"));
    settle();
    endpoint.stop();
    long down = System.nanoTime();
    sim.startEvent("LO-1");
    settle();
    sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM.name())).withId("LO-2"));
    settle();
    sim.completeEvent("LO-1");
    settle();
    Thread.sleep(Math.max(0, 15_000 - Duration.ofNanos(System.nanoTime() - down).toMillis()));
    endpoint.failNext(2, 429, Map.of("Retry-After", "2"));
    endpoint.restart();
    sim.cancelEvent("LO-2");
    assertThat(transitionRows(5))
        .containsExactly(
            "LO-1:Scheduled", "LO-1:Started", "LO-2:Scheduled", "LO-1:Completed", "LO-2:Canceled");
    assertThat(endpoint.calls().stream().filter(c -> c.status() == 429).count()).isEqualTo(2);
    // The operator sees one clear warning and the recovery, not the SDK's stack traces.
    System.out.println(agent.stderr());
    assertThat(agent.stderr())
        .contains("sink loganalytics has been failing for ")
        .contains("sink loganalytics delivers again after an outage of")
        .doesNotContain(" ERROR ");
    assertThat(agent.stderr().lines().filter(l -> l.contains(" WARN "))).hasSize(1);
  }
}
