package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import dev.sebridge.command.TestKeys;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestHub;
import dev.sebridge.sink.eventhubs.testing.EventHubsTestHub.ReadEvent;
import dev.sebridge.testing.EnvelopeFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
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
 * Simulator -> `sebridge run` (a real process) -> Event Hubs (the AMQP test peer, or the emulator
 * where Docker runs) -> the real EventHubConsumerClient; and a signed approval sent with `sebridge
 * approve` through the commands hub back into the agent.
 */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class EventHubsEndToEndTest {
  static final Duration WAIT = Duration.ofSeconds(120);
  static final String EVENTS = "scheduled-events";
  static final String COMMANDS = "sebridge-commands";
  static final SimVm VM = SimVm.of("eh-vm-0", "55555555-0000-4000-8000-000000000000");
  static final JWK KEY = TestKeys.es256("sre-eh-2026");

  @TempDir Path dir;
  ImdsSimulator sim;
  EventHubsTestHub namespace;
  AgentProcess agent;

  @BeforeEach
  void start() throws Exception {
    sim = ImdsSimulator.builder().vm(VM).build().start();
    namespace = EventHubsTestHub.start(Map.of(EVENTS, 4, COMMANDS, 4));
    Files.writeString(
        dir.resolve("trusted.jwks"), new JWKSet(List.of(KEY.toPublicJWK())).toString());
    Files.writeString(dir.resolve("signing.jwk"), KEY.toJSONString());
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.close();
    }
    namespace.close();
    sim.close();
  }

  void startAgent() throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("imds.endpoint", sim.baseUri(VM.name()).toString());
    settings.put("state.dir", dir.resolve("state").toString());
    settings.put("sinks", "eventhubs,file");
    settings.put("sink.file.path", dir.resolve("out.jsonl").toString());
    settings.put("commands.source", "eventhubs");
    settings.put("commands.trusted-keys", dir.resolve("trusted.jwks").toString());
    settings.put("publish.max-backoff", "2s");
    agent =
        AgentProcess.runPolling(
            sim,
            WAIT,
            dir.resolve("logs"),
            List.of(),
            // Secrets from the environment, as docs/eventhubs.md says to.
            Map.of(
                "SEBRIDGE_SINK_EVENTHUBS_CONNECTION_STRING", namespace.connectionString(EVENTS),
                "SEBRIDGE_COMMANDS_EVENTHUBS_CONNECTION_STRING",
                    namespace.connectionString(COMMANDS)),
            settings);
  }

  /** Waits until the agent has been served the simulator's current document. */
  void settle() {
    AgentProcess.awaitServed(sim, WAIT, List.of(VM.name()));
  }

  /**
   * What a consumer reads from the events hub, deduplicated by envelope id (a duplicate must be
   * identical), checked against the file sink's envelopes: partition key = vmId, one partition, the
   * CloudEvents hints. Returns "EventId:Transition" in order.
   */
  List<String> transitions(int expected) throws Exception {
    List<ReadEvent> read = new ArrayList<>();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              read.clear();
              read.addAll(namespace.read(EVENTS, Map.of(), expected, Duration.ofSeconds(5)));
              return read.stream()
                      .map(r -> Envelope.fromJson(r.data().getBody()))
                      .filter(e -> e.type().startsWith("dev.sebridge.scheduledevent"))
                      .map(Envelope::id)
                      .distinct()
                      .count()
                  >= expected;
            });
    Map<String, JsonNode> fileById = new HashMap<>();
    for (JsonNode e : new EnvelopeFile(dir.resolve("out.jsonl")).read()) {
      fileById.put(e.get("id").asText(), e);
    }
    Map<String, String> seen = new LinkedHashMap<>();
    List<String> out = new ArrayList<>();
    int duplicates = 0;
    for (ReadEvent r : read) {
      assertThat(r.data().getPartitionKey()).isEqualTo(VM.vmId());
      assertThat(r.partitionId()).isEqualTo(read.get(0).partitionId());
      assertThat(r.data().getContentType())
          .isEqualTo("application/cloudevents+json; charset=utf-8");
      Envelope e = Envelope.fromJson(r.data().getBody());
      String first = seen.putIfAbsent(e.id(), r.body());
      if (first != null) {
        assertThat(r.body()).as("a duplicate must be the identical envelope").isEqualTo(first);
        duplicates++;
        continue;
      }
      assertThat(e.json()).isEqualTo(fileById.get(e.id()));
      assertThat(r.data().getProperties()).containsEntry("cloudEvents_id", e.id());
      if (e.type().startsWith("dev.sebridge.scheduledevent")) {
        out.add(EnvelopeFile.describe(e.json()));
      }
    }
    System.out.println(
        "events hub: " + read.size() + " events read, " + duplicates + " duplicates (same id)");
    return out;
  }

  @Test
  void everyTransitionReachesTheHubKeyedByVmIdAcrossA30SecondOutage() throws Exception {
    startAgent();
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())).withId("EF-1"));
    sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM.name())).withId("ER-1"));
    settle();
    sim.startEvent("EF-1");
    settle();
    namespace.takeDown();
    long down = System.nanoTime();
    sim.cancelEvent("ER-1");
    settle();
    sim.addEvent(
        EventSpec.scheduled("Redeploy", List.of(VM.name())).asHardwareFailure().withId("EH-1"));
    settle();
    sim.completeEvent("EF-1");
    Thread.sleep(Math.max(0, 30_000 - Duration.ofNanos(System.nanoTime() - down).toMillis()));
    namespace.bringBack();
    sim.completeEvent("EH-1");
    assertThat(transitions(7))
        .containsExactly(
            "EF-1:Scheduled",
            "ER-1:Scheduled",
            "EF-1:Started",
            "ER-1:Canceled",
            "EH-1:Started",
            "EF-1:Completed",
            "EH-1:Completed");
    // No error stack for an outage the outbox rides out; the secret never reaches the logs. (Each
    // attempt waits up to ~21 s for the client, so 30 s is two attempts: below the outbox's
    // threshold for a WARN.)
    System.out.println(agent.stderr());
    assertThat(agent.stderr() + agent.stdout())
        .doesNotContain(" ERROR ")
        .doesNotContain(dev.sebridge.sink.eventhubs.testing.EventHubsTestPeer.KEY);
  }

  @Test
  void anApprovalSentWithSebridgeApproveThroughTheCommandsHubIsPostedAndAnswered()
      throws Exception {
    startAgent();
    sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM.name())).withId("EA-1"));
    assertThat(transitions(1)).containsExactly("EA-1:Scheduled");

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var saved = ApproveCommand.environment;
    ApproveCommand.environment =
        name -> name.equals("EH_COMMANDS") ? namespace.connectionString(COMMANDS) : null;
    int exit;
    try {
      exit =
          Main.execute(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
              "approve",
              "--event-id",
              "EA-1",
              "--vm",
              VM.vmId(),
              "--key",
              dir.resolve("signing.jwk").toString(),
              "--eventhubs-connection-string-env",
              "EH_COMMANDS",
              "--reason",
              "CHG-1");
    } finally {
      ApproveCommand.environment = saved;
    }
    assertThat(exit).as(err.toString()).isZero();
    String commandId = out.toString().trim();
    assertThat(err.toString()).contains("published to event hub " + COMMANDS + " partition");

    await().atMost(WAIT).until(() -> !sim.startRequests().isEmpty());
    assertThat(sim.startRequests())
        .singleElement()
        .satisfies(r -> assertThat(r.eventIds()).containsExactly("EA-1"));
    // The result envelope reaches the events hub.
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                namespace.read(EVENTS, Map.of(), 2, Duration.ofSeconds(3)).stream()
                    .map(r -> Envelope.fromJson(r.data().getBody()))
                    .anyMatch(
                        e ->
                            e.type().equals("dev.sebridge.approval.result.v1")
                                && e.json().at("/data/commandId").asText().equals(commandId)
                                && e.json().at("/data/outcome").asText().equals("accepted")));
    await().atMost(WAIT).until(() -> transitionsInFile().contains("EA-1:Started"));
  }

  List<String> transitionsInFile() {
    return new EnvelopeFile(dir.resolve("out.jsonl")).transitions();
  }
}
