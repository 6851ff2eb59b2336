package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.PlainHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.sebridge.agent.Agent;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.TestKeys;
import dev.sebridge.config.Configuration;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.KafkaCommandPublisher;
import dev.sebridge.sink.kafka.KafkaTestBroker;
import dev.sebridge.testing.EnvelopeFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Signed approval commands through a real Kafka broker into the agent, checked at the simulator:
 * every valid command ends in a POST and an accepted result; every invalid one in a rejected result
 * with its reason, and no POST at all.
 */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class ApprovalEndToEndTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final SimVm ME = SimVm.of("WestNO_0", "44444444-0000-4000-8000-000000000000");
  static final SimVm OTHER = SimVm.of("WestNO_1", "44444444-0000-4000-8000-000000000001");
  static final JWK KEY = TestKeys.es256("sre-2026");
  static final JWK ED_KEY = TestKeys.ed25519("sre-ed-2026");
  static KafkaTestBroker kafka;

  @TempDir Path dir;
  ImdsSimulator sim;
  Agent agent;
  String topic;
  EnvelopeFile out;

  @BeforeAll
  static void startKafka() {
    kafka = KafkaTestBroker.start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  @BeforeEach
  void start() throws Exception {
    sim = ImdsSimulator.builder().vm(ME).vm(OTHER).build().start();
    topic = KafkaTestBroker.uniqueTopic("commands");
    kafka.createCommandsTopic(topic, 4);
    Files.writeString(
        dir.resolve("trusted.jwks"),
        new JWKSet(List.of(KEY.toPublicJWK(), ED_KEY.toPublicJWK())).toString());
    out = new EnvelopeFile(dir.resolve("out.jsonl"));
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.close();
    }
    sim.close();
  }

  void startAgent(Map<String, String> extra) {
    Map<String, String> m = new HashMap<>();
    m.put("imds.endpoint", sim.baseUri(ME.name()).toString());
    m.put("imds.poll-interval", "200ms");
    m.put("state.dir", dir.resolve("state").toString());
    m.put("sinks", "file");
    m.put("sink.file.path", dir.resolve("out.jsonl").toString());
    m.put("http.port", "0");
    m.put("commands.source", "kafka");
    m.put("commands.kafka.bootstrap-servers", kafka.bootstrapServers());
    m.put("commands.kafka.topic", topic);
    m.put("commands.trusted-keys", dir.resolve("trusted.jwks").toString());
    m.putAll(extra);
    agent = Agent.builder(Configuration.of(m)).build().start();
    await().atMost(WAIT).until(() -> agent.identity().isPresent() && agent.stats().documents() > 0);
  }

  void send(byte[] command) throws Exception {
    KafkaCommandPublisher.publish(kafka.bootstrapServers(), topic, ME.vmId(), command, Map.of());
  }

  List<JsonNode> results() {
    return out.read().stream()
        .filter(e -> e.get("type").asText().equals("dev.sebridge.approval.result.v1"))
        .toList();
  }

  JsonNode awaitResult(int n) {
    await().atMost(WAIT).until(() -> results().size() >= n);
    return results().get(n - 1).get("data");
  }

  static byte[] signed(JWK key, String vm, List<String> eventIds, Instant iat, Duration ttl) {
    return new CommandSigner(key, "sre-approvals")
        .sign(new CommandSigner.Request(vm, eventIds, "alice@example.com", "CHG-4711", iat, ttl));
  }

  byte[] valid(String eventId) {
    return signed(KEY, ME.vmId(), List.of(eventId), Instant.now(), Duration.ofMinutes(5));
  }

  static JWTClaimsSet claims(String jti, String eventId) {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .jwtID(jti)
        .issuer("mallory")
        .audience(ME.vmId())
        .issueTime(Date.from(now))
        .notBeforeTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(300)))
        .claim("eventIds", List.of(eventId))
        .claim("requestedBy", "mallory")
        .claim("reason", "")
        .build();
  }

  @Test
  void aValidCommandIsPostedAndTheEventStarts() throws Exception {
    startAgent(Map.of());
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name(), OTHER.name())));
    out.await(1, WAIT);
    byte[] cmd = valid(id);
    long sent = System.nanoTime();
    send(cmd);
    await().atMost(WAIT).until(() -> !sim.startRequests().isEmpty());
    long latencyMs = (System.nanoTime() - sent) / 1_000_000;
    assertThat(sim.startRequests())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.eventIds()).containsExactly(id);
              assertThat(r.vm()).isEqualTo(ME.name());
              assertThat(r.status()).isEqualTo(200);
            });
    JsonNode result = awaitResult(1);
    assertThat(result.get("outcome").asText()).isEqualTo("accepted");
    assertThat(result.get("origin").asText()).isEqualTo("command");
    assertThat(result.get("commandId").asText()).isEqualTo(CommandSigner.commandId(cmd));
    assertThat(result.get("imdsStatus").asInt()).isEqualTo(200);
    assertThat(result.get("requestedBy").asText()).isEqualTo("alice@example.com");
    assertThat(result.get("keyId").asText()).isEqualTo("sre-2026");
    await().atMost(WAIT).until(() -> out.transitions().contains(id + ":Started"));
    assertThat(latencyMs).as("command to POST, ms").isLessThan(10_000);
    System.out.println("approval latency (command produced -> POST at IMDS): " + latencyMs + " ms");
  }

  @Test
  void anEventAzureGaveAVmTheIssuerDidNotCountIsRefusedAndNothingIsPosted() throws Exception {
    startAgent(Map.of());
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name(), OTHER.name())));
    out.await(1, WAIT);
    // The issuer counted the two VMs the event listed when it decided; Azure then adds a third.
    // (the agent checks on a fresh read of IMDS, whatever its last poll saw)
    sim.changeResources(id, List.of(ME.name(), OTHER.name(), "WestNO_2"));
    send(counted(id, List.of(ME.name().toLowerCase(java.util.Locale.ROOT), OTHER.name())));
    JsonNode refused = awaitResult(1);
    assertThat(refused.get("outcome").asText()).isEqualTo("rejected");
    assertThat(refused.get("reasonCode").asText()).isEqualTo("resources-changed");
    assertThat(refused.get("reason").asText()).contains("WestNO_2");
    assertThat(sim.startRequests()).isEmpty();
    assertThat(sim.eventStatus(id)).contains("Scheduled");

    // Asked again with the VMs it lists now, it is posted.
    send(counted(id, List.of(ME.name(), OTHER.name(), "westno_2")));
    assertThat(awaitResult(2).get("outcome").asText()).isEqualTo("accepted");
    assertThat(sim.startRequests())
        .singleElement()
        .satisfies(r -> assertThat(r.eventIds()).containsExactly(id));
  }

  byte[] counted(String eventId, List<String> names) {
    return new CommandSigner(KEY, "sebridge-fleet")
        .sign(
            new CommandSigner.Request(
                ME.vmId(),
                List.of(eventId),
                "rollout:patch",
                "wave 1",
                Instant.now(),
                Duration.ofMinutes(5),
                Map.of(eventId, names)));
  }

  @Test
  void eachInvalidCommandIsRejectedWithItsReasonAndNothingIsPosted() throws Exception {
    startAgent(Map.of());
    String reboot = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    String started = sim.addEvent(EventSpec.scheduled("Freeze", List.of(ME.name())));
    sim.startEvent(started);
    String notMine = sim.addEvent(EventSpec.scheduled("Redeploy", List.of(OTHER.name())));
    String terminate = sim.addEvent(EventSpec.scheduled("Terminate", List.of(ME.name())));
    out.await(4, WAIT);

    SignedJWT hs =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("sre-2026").build(),
            claims("hs", reboot));
    hs.sign(new MACSigner(KEY.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8)));
    Instant now = Instant.now();
    Map<String, byte[]> cases = new java.util.LinkedHashMap<>();
    cases.put(
        "unsigned",
        CommandSigner.envelope(
            "u1", ME.vmId(), reboot, now, "{\"eventIds\":[\"" + reboot + "\"]}"));
    cases.put(
        "bad-signature",
        signed(TestKeys.es256("sre-2026"), ME.vmId(), List.of(reboot), now, Duration.ofMinutes(5)));
    cases.put(
        "untrusted-key",
        signed(
            TestKeys.es256("someone-else"),
            ME.vmId(),
            List.of(reboot),
            now,
            Duration.ofMinutes(5)));
    cases.put(
        "alg-not-allowed",
        CommandSigner.envelope(
            "none1",
            ME.vmId(),
            reboot,
            now,
            new PlainJWT(new PlainHeader(), claims("none1", reboot)).serialize()));
    cases.put(
        "alg-not-allowed(HS256 with the public key)",
        CommandSigner.envelope("hs", ME.vmId(), reboot, now, hs.serialize()));
    cases.put(
        "expired",
        signed(
            KEY,
            ME.vmId(),
            List.of(reboot),
            now.minus(Duration.ofMinutes(15)),
            Duration.ofMinutes(5)));
    cases.put(
        "not-yet-valid",
        signed(
            KEY,
            ME.vmId(),
            List.of(reboot),
            now.plus(Duration.ofMinutes(5)),
            Duration.ofMinutes(5)));
    cases.put(
        "lifetime-too-long", signed(KEY, ME.vmId(), List.of(reboot), now, Duration.ofMinutes(15)));
    cases.put(
        "wrong-audience", signed(KEY, OTHER.vmId(), List.of(reboot), now, Duration.ofMinutes(5)));
    cases.put("unknown-event", valid("00000000-DEAD-BEEF-0000-000000000000"));
    cases.put("not-scheduled", valid(started));
    cases.put("not-listed", valid(notMine));
    cases.put("type-not-allowed", valid(terminate));
    cases.put("malformed", "{\"specversion\": \"1.0\", oops".getBytes(StandardCharsets.UTF_8));
    cases.put(
        "oversized",
        ("{\"data\":\"" + "A".repeat(40_000) + "\"}").getBytes(StandardCharsets.UTF_8));
    int n = 0;
    for (var c : cases.entrySet()) {
      send(c.getValue());
      JsonNode r = awaitResult(++n);
      String expected = c.getKey().replaceAll("\\(.*\\)", "");
      assertThat(r.get("outcome").asText()).as(c.getKey()).isEqualTo("rejected");
      assertThat(r.get("reasonCode").asText()).as(c.getKey()).isEqualTo(expected);
      assertThat(r.get("reason").asText()).as(c.getKey()).isNotBlank();
      assertThat(r.get("imdsStatus").isNull()).isTrue();
    }
    assertThat(sim.startRequests()).as("nothing may be posted for a rejected command").isEmpty();
    assertThat(sim.eventStatus(reboot)).contains("Scheduled");
    assertThat(sim.eventStatus(terminate)).contains("Scheduled");
  }

  @Test
  void aReplayedCommandIsRejectedAlsoAfterARestart() throws Exception {
    startAgent(Map.of());
    String a = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    out.await(1, WAIT);
    byte[] cmd = signed(ED_KEY, ME.vmId(), List.of(a), Instant.now(), Duration.ofMinutes(5));
    send(cmd);
    assertThat(awaitResult(1).get("outcome").asText()).isEqualTo("accepted");
    send(cmd);
    JsonNode replay = awaitResult(2);
    assertThat(replay.get("reasonCode").asText()).isEqualTo("replayed");
    agent.close();
    startAgent(Map.of());
    send(cmd);
    JsonNode afterRestart = awaitResult(3);
    assertThat(afterRestart.get("outcome").asText()).isEqualTo("rejected");
    assertThat(afterRestart.get("reasonCode").asText()).isEqualTo("replayed");
    assertThat(sim.startRequests()).hasSize(1);
    // The restarted agent did not re-handle the first two commands: its position was committed.
    assertThat(results()).hasSize(3);
  }

  @Test
  void terminateIsApprovedOnlyWhenAllowed() throws Exception {
    startAgent(Map.of("approval.allow-types", "Terminate"));
    String t = sim.addEvent(EventSpec.scheduled("Terminate", List.of(ME.name())));
    out.await(1, WAIT);
    send(valid(t));
    assertThat(awaitResult(1).get("outcome").asText()).isEqualTo("accepted");
    assertThat(sim.startRequests()).hasSize(1);
  }

  @Test
  void theUserInitiatedPolicyApprovesAUserRebootWithoutACommand() throws Exception {
    startAgent(Map.of("approval.policy", "user-initiated"));
    String user =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())).withSource("User"));
    String platform = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    await().atMost(WAIT).until(() -> !sim.startRequests().isEmpty());
    assertThat(sim.startRequests())
        .singleElement()
        .satisfies(r -> assertThat(r.eventIds()).containsExactly(user));
    JsonNode r = awaitResult(1);
    assertThat(r.get("origin").asText()).isEqualTo("policy");
    assertThat(r.get("reasonCode").asText()).isEqualTo("policy-user-initiated");
    assertThat(r.get("outcome").asText()).isEqualTo("accepted");
    await().atMost(WAIT).until(() -> out.transitions().contains(user + ":Started"));
    assertThat(sim.eventStatus(platform)).contains("Scheduled");
  }

  @Test
  void dryRunPublishesWhatWouldBeApprovedAndPostsNothing() throws Exception {
    startAgent(Map.of("approval.dry-run", "true", "approval.policy", "short-freeze"));
    String freeze = sim.addEvent(EventSpec.scheduled("Freeze", List.of(ME.name())).withDuration(5));
    assertThat(awaitResult(1).get("outcome").asText()).isEqualTo("dry-run");
    String reboot = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    out.await(2, WAIT); // the Freeze and the Reboot, Scheduled
    send(valid(reboot));
    JsonNode r = awaitResult(2);
    assertThat(r.get("outcome").asText()).isEqualTo("dry-run");
    assertThat(sim.startRequests()).isEmpty();
    assertThat(sim.eventStatus(freeze)).contains("Scheduled");
    assertThat(UUID.fromString(results().get(0).get("id").asText()).version()).isEqualTo(5);
  }
}
