package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.TestKeys;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.testing.EnvelopeFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A commands topic written by someone without a signing key (a compromised CI job, a misconfigured
 * producer) cannot crash, silence or block the agents: against a real broker, the simulator and
 * real agent processes.
 */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class HostileCommandsTest {
  static final SimVm ME = SimVm.of("hostile-0", "dddddddd-0000-4000-8000-000000000000");
  static final SimVm NEIGHBOUR = SimVm.of("hostile-1", "dddddddd-0000-4000-8000-000000000001");
  static final Duration WAIT = Duration.ofSeconds(60);
  static final String RESULT = "dev.sebridge.approval.result.v1";

  @RegisterExtension static final AgentFixture fixture = AgentFixture.withKafka(ME, NEIGHBOUR);

  Map<String, String> settings(String topic, Map<String, String> extra) {
    Map<String, String> m = new LinkedHashMap<>(fixture.commandsFrom(topic));
    m.put("heartbeat.interval", "1h");
    m.putAll(extra);
    return m;
  }

  byte[] approve(String eventId, Instant iat) {
    return new CommandSigner(AgentFixture.KEY, "sre-approvals")
        .sign(
            new CommandSigner.Request(
                ME.vmId(),
                List.of(eventId),
                "alice@example.com",
                "CHG-1",
                iat,
                Duration.ofMinutes(5)));
  }

  List<JsonNode> results(EnvelopeFile out) {
    return out.read().stream().filter(e -> e.get("type").asText().equals(RESULT)).toList();
  }

  /** A zstd batch of a few KiB that decompresses to {@code mib} MiB, keyed for {@code vmId}. */
  void sendBomb(String topic, String vmId, int mib) throws Exception {
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers", fixture.kafka().bootstrapServers(),
                "compression.type", "zstd",
                "max.request.size", Integer.toString(256 << 20),
                "buffer.memory", Integer.toString(512 << 20),
                "acks", "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      p.send(
              new ProducerRecord<>(
                  topic, vmId.getBytes(StandardCharsets.UTF_8), new byte[mib << 20]))
          .get();
    }
  }

  @Test
  void aCompressionBombIsRefusedByTheCommandsTopicAndTheAgentApprovesOn() throws Exception {
    String topic = fixture.commandsTopic("safe-commands", 1);
    fixture.process(ME, List.of(), settings(topic, Map.of()));
    assertThatThrownBy(() -> sendBomb(topic, NEIGHBOUR.vmId(), 48))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RecordTooLargeException.class);
    String e = fixture.sim().addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    fixture.out(ME).await(1, WAIT);
    fixture.send(topic, ME.vmId(), approve(e, Instant.now()));
    await().atMost(WAIT).until(() -> fixture.sim().eventStatus(e).orElse("").equals("Started"));
  }

  @Test
  void onATopicThatCouldDeliverABombApprovalsAreOffAndEventsGoOn() throws Exception {
    String topic = fixture.topic("unsafe-commands", 1); // default: compression by the producer
    int port = AgentFixture.freePort();
    AgentProcess agent =
        fixture.process(
            ME, List.of(), settings(topic, Map.of("http.port", Integer.toString(port))));
    await().atMost(WAIT).until(() -> agent.stderr().contains("approval commands are off"));
    assertThat(agent.stderr())
        .contains("compression.type=producer")
        .contains("--add-config compression.type=uncompressed,max.message.bytes=65536");
    sendBomb(topic, NEIGHBOUR.vmId(), 48);
    String e = fixture.sim().addEvent(EventSpec.scheduled("Freeze", List.of(ME.name())));
    assertThat(fixture.out(ME).await(1, WAIT).get(0).at("/data/event/EventId").asText())
        .isEqualTo(e);
    HttpResponse<String> ready =
        HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(503);
    assertThat(ready.body()).contains("approval commands are off");
    assertThat(agent.isAlive()).isTrue();
  }

  /**
   * A record that kills the agent (here: a bomb on a topic whose check is off, right behind a
   * genuine approval in the same fetch) is skipped after three deaths at its own position, and the
   * approval before it is handled. After the first death the agent reads one record at a time;
   * before, every death was counted at the fetch's first record, and the approval was skipped as
   * the poison. The skip then holds across one more death, right after the skip's result and
   * position are durable and before the reading marker is (a crash point), though no command of
   * this VM's came after the bomb to move its position: before, the skip lived in the consumer
   * only, and with the marker written first the deaths were counted one past the bomb.
   */
  @Test
  void aRecordThatKillsTheAgentIsSkippedAfterThreeDeathsWithAPoisonRecordResult() throws Exception {
    String topic = fixture.topic("poison-commands", 1);
    Map<String, String> s = settings(topic, Map.of("commands.kafka.verify-topic", "false"));
    List<String> jvm = List.of("-Xmx64m", "-XX:+ExitOnOutOfMemoryError");
    String e = fixture.sim().addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    fixture.send(topic, ME.vmId(), approve(e, Instant.now())); // offset 0
    sendBomb(topic, NEIGHBOUR.vmId(), 96); // offset 1
    List<Integer> exits = new ArrayList<>();
    for (int i = 0; i < 4; i++) { // once in the fetch of both, three times at the bomb itself
      AgentProcess dying = fixture.processNoWait(ME, jvm, s);
      exits.add(dying.waitFor(WAIT));
    }
    assertThat(exits).as("four deaths by OutOfMemoryError").containsOnly(3);
    assertThat(fixture.sim().eventStatus(e)).as("approved between the deaths").contains("Started");
    List<String> crashing = new ArrayList<>(jvm);
    crashing.add("-D" + CrashPoints.PROPERTY + "=" + CrashPoints.PUMP_AFTER_POISON_RESULT);
    AgentProcess skipping = fixture.processNoWait(ME, crashing, s);
    assertThat(skipping.waitFor(WAIT)).as(skipping.stderr()).isEqualTo(CrashPoints.EXIT_CODE);
    assertThat(skipping.stderr()).contains("skipped the record at " + topic + "/0@1");

    AgentProcess restarted = fixture.processNoWait(ME, jvm, s);
    EnvelopeFile out = fixture.out(ME);
    await().atMost(WAIT).until(() -> !restarted.isAlive() || !poisonResults(out).isEmpty());
    assertThat(restarted.isAlive()).as("the restarted agent: %s", restarted.stderr()).isTrue();
    assertThat(poisonResults(out).get(0).at("/data/record").asText()).isEqualTo(topic + "/0@1");
    assertThat(
            results(out).stream()
                .filter(r -> r.at("/data/record").asText().equals(topic + "/0@0"))
                .map(r -> r.at("/data/outcome").asText())
                .distinct())
        .as("the approval before the bomb")
        .containsExactly("accepted");
    String later = fixture.sim().addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    fixture.send(topic, ME.vmId(), approve(later, Instant.now()));
    await()
        .atMost(WAIT)
        .until(
            () ->
                !restarted.isAlive()
                    || fixture.sim().eventStatus(later).orElse("").equals("Started"));
    assertThat(restarted.isAlive()).as("the restarted agent: %s", restarted.stderr()).isTrue();
    // Once: copies after a crash are the same envelope (one id), as delivery is at least once.
    assertThat(poisonResults(out).stream().map(r -> r.get("id").asText()).distinct())
        .as("the record was skipped once")
        .hasSize(1);
    assertThat(restarted.stderr())
        .doesNotContain("skipped the record")
        .contains("no record there to skip");
  }

  List<JsonNode> poisonResults(EnvelopeFile out) {
    return results(out).stream()
        .filter(r -> r.at("/data/reasonCode").asText().equals("poison-record"))
        .toList();
  }

  @Test
  void aFloodOfGarbageNeitherDelaysAGenuineApprovalNorFloodsTheLogOrTheTopic() throws Exception {
    String topic = fixture.commandsTopic("flooded-commands", 1);
    AgentProcess agent =
        fixture.process(
            ME, List.of(), settings(topic, Map.of("commands.rejections.interval", "5s")));
    String e = fixture.sim().addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    EnvelopeFile out = fixture.out(ME);
    out.await(1, WAIT);
    JWK stranger = TestKeys.es256("not-trusted");
    int garbage = 250_000;
    Random random = new Random(7);
    List<byte[]> kinds =
        List.of(
            "{\"not\": \"a command\"}".getBytes(StandardCharsets.UTF_8),
            new CommandSigner(stranger, "mallory")
                .sign(
                    new CommandSigner.Request(
                        ME.vmId(),
                        List.of(e),
                        "mallory",
                        "",
                        Instant.now(),
                        Duration.ofMinutes(5))),
            approve(e, Instant.now().minus(Duration.ofHours(1))));
    Instant produced;
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers", fixture.kafka().bootstrapServers(),
                "linger.ms", "5",
                "batch.size", "65536"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      byte[] key = ME.vmId().getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < garbage; i++) {
        p.send(new ProducerRecord<>(topic, key, kinds.get(random.nextInt(kinds.size()))));
      }
      p.flush();
      p.send(new ProducerRecord<>(topic, key, approve(e, Instant.now()))).get();
      produced = Instant.now();
    }
    await().atMost(WAIT).until(() -> fixture.sim().eventStatus(e).orElse("").equals("Started"));
    Duration delay = Duration.between(produced, fixture.sim().startRequests().get(0).at());
    System.out.println(
        "FLOOD genuine approval POSTed "
            + delay.toMillis()
            + " ms after it was produced, behind "
            + garbage
            + " garbage records");
    // Every rejection counted (metrics, summaries); the log and the topic stay small.
    await()
        .atMost(Duration.ofMinutes(2))
        .until(
            () ->
                results(out).stream()
                            .filter(r -> r.at("/data/resultKind").asText().equals("summary"))
                            .mapToLong(r -> r.at("/data/summary/rejected").asLong())
                            .sum()
                        + results(out).stream()
                            .filter(
                                r ->
                                    r.at("/data/reasonCode").asText().equals("malformed")
                                        || r.at("/data/reasonCode").asText().equals("untrusted-key")
                                        || r.at("/data/reasonCode").asText().equals("expired"))
                            .count()
                    >= garbage);
    // At most 20 rejections a window (5 s here) are answered one by one; the rest are counted.
    long summaries =
        results(out).stream()
            .filter(r -> r.at("/data/resultKind").asText().equals("summary"))
            .count();
    long individual =
        results(out).stream()
            .filter(r -> r.at("/data/outcome").asText().equals("rejected"))
            .filter(r -> !r.at("/data/resultKind").asText().equals("summary"))
            .count();
    assertThat(summaries).isPositive();
    assertThat(individual).isLessThanOrEqualTo(20 * (summaries + 1));
    assertThat(results(out)).hasSizeLessThan(garbage / 250);
    long warnLines = agent.stderr().lines().filter(l -> l.contains(" WARN ")).count();
    assertThat(warnLines).isLessThanOrEqualTo(individual + summaries + 5);
  }

  @Test
  void untrustedStringsCannotForgeLogLinesNorBeEchoedAtTheirSize() throws Exception {
    String topic = fixture.commandsTopic("forged-commands", 1);
    AgentProcess agent = fixture.process(ME, List.of(), settings(topic, Map.of()));
    String forged =
        "x\n2026-11-23T10:00:00.000Z INFO  [sebridge-commands] approved [ALL] (accepted)";
    fixture.send(
        topic,
        ME.vmId(),
        CommandSigner.envelope(
            forged, ME.vmId(), "E", Instant.now(), "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"));
    String hugeKid = "k".repeat(19_000);
    String header =
        java.util.Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(
                ("{\"alg\":\"ES256\",\"kid\":\"" + hugeKid + "\"}")
                    .getBytes(StandardCharsets.UTF_8));
    fixture.send(
        topic,
        ME.vmId(),
        CommandSigner.envelope("huge-kid", ME.vmId(), "E", Instant.now(), header + ".e30.c2ln"));
    EnvelopeFile out = fixture.out(ME);
    await().atMost(WAIT).until(() -> results(out).size() >= 2);
    assertThat(agent.stderr().lines())
        .noneMatch(l -> l.startsWith("2026-11-23T10:00:00.000Z INFO  [sebridge-commands] approved"))
        .anyMatch(l -> l.contains("x\\n2026-11-23T10:00:00.000Z INFO"))
        .allMatch(l -> l.length() < 2_000);
    JsonNode huge =
        results(out).stream()
            .filter(r -> r.at("/data/commandId").asText().equals("huge-kid"))
            .findFirst()
            .orElseThrow();
    assertThat(huge.toString().length()).isLessThan(4_000);
    assertThat(huge.at("/data/keyId").asText()).hasSizeLessThan(200).endsWith("more)");
  }
}
