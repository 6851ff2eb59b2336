package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import dev.sebridge.agent.Agent;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.command.TestKeys;
import dev.sebridge.config.Configuration;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.KafkaTestBroker;
import dev.sebridge.testing.EnvelopeFile;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * docs/approvals.md's Python example as a real, separate client (Debian's python3 with
 * python3-confluent-kafka and python3-jwcrypto; .ci/run installs them) against a real broker, the
 * simulator and a real agent: an accepted round trip in both CloudEvents modes, refusals matched to
 * their command by id, a replay reported apart from the outcome, vmIds in any case; and the routing
 * test vectors of the docs against Kafka's murmur2 and librdkafka's murmur2_random. And the Node.js
 * example (kafkajs, jose; npm ci from its lock file) approves through the same broker and agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class ApprovalClientExamplesTest {
  static final String PYTHON = "/usr/bin/python3";
  static final Path EXAMPLES =
      Path.of(System.getProperty("basedir", ".")).resolve("../examples/approvals/python");
  static final Path DOCS = Path.of(System.getProperty("basedir", ".")).resolve("../docs");
  static final ObjectMapper JSON = new ObjectMapper();
  static final SimVm ME = SimVm.of("WestNO_0", "5c2e3c9a-0000-4000-8000-000000000000");
  static final SimVm OTHER = SimVm.of("WestNO_1", "5c2e3c9a-0000-4000-8000-000000000001");
  static final JWK KEY = TestKeys.es256("workflow-2026");
  static final JWK STRANGER = TestKeys.es256("stranger");

  Path dir;
  KafkaTestBroker kafka;
  ImdsSimulator sim;
  Agent agent;
  String commands;
  String events;

  @BeforeAll
  void start() throws Exception {
    assertThat(new File(PYTHON).canExecute()).as("Debian's python3 is required").isTrue();
    dir = Files.createTempDirectory("python-approvals-");
    kafka = KafkaTestBroker.start();
    commands = KafkaTestBroker.uniqueTopic("commands");
    events = KafkaTestBroker.uniqueTopic("events");
    kafka.createCommandsTopic(commands, 4);
    kafka.createTopic(events, 1);
    sim = ImdsSimulator.builder().vm(ME).vm(OTHER).build().start();
    Files.writeString(dir.resolve("trusted.jwks"), new JWKSet(KEY.toPublicJWK()).toString());
    Files.writeString(dir.resolve("workflow.jwk"), KEY.toJSONString());
    Files.writeString(dir.resolve("stranger.jwk"), STRANGER.toJSONString());
    Map<String, String> m = new HashMap<>();
    m.put("imds.endpoint", sim.baseUri(ME.name()).toString());
    m.put("imds.poll-interval", "200ms");
    m.put("state.dir", dir.resolve("state").toString());
    m.put("sinks", "kafka,file");
    m.put("sink.kafka.bootstrap-servers", kafka.bootstrapServers());
    m.put("sink.kafka.topic", events);
    m.put("sink.file.path", dir.resolve("out.jsonl").toString());
    m.put("http.port", "0");
    m.put("commands.source", "kafka");
    m.put("commands.kafka.bootstrap-servers", kafka.bootstrapServers());
    m.put("commands.kafka.topic", commands);
    m.put("commands.trusted-keys", dir.resolve("trusted.jwks").toString());
    agent = Agent.builder(Configuration.of(m)).build().start();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> agent.identity().isPresent() && agent.stats().documents() > 0);
  }

  @AfterAll
  void stop() {
    if (agent != null) {
      agent.close();
    }
    if (sim != null) {
      sim.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void structuredAndBinaryCommandsApproveAndAnyCaseOfTheVmIdReachesIt() throws Exception {
    String structured = scheduled();
    JsonNode r = approve(0, "--event", structured);
    assertThat(r.path("outcome").asText()).isEqualTo("accepted");
    assertThat(posted(structured)).isTrue();

    String binary = scheduled();
    assertThat(approve(0, "--event", binary, "--binary").path("outcome").asText())
        .isEqualTo("accepted");
    assertThat(posted(binary)).isTrue();

    // upper case in aud (and given upper case, the client keys by the canonical lower case)
    String upper = scheduled();
    assertThat(
            approve(
                    0,
                    "--event",
                    upper,
                    "--vm",
                    ME.vmId().toUpperCase(),
                    "--aud",
                    ME.vmId().toUpperCase())
                .path("outcome")
                .asText())
        .isEqualTo("accepted");
    assertThat(posted(upper)).isTrue();
  }

  @Test
  void refusalsCarryTheCommandIdAndAReplayIsReportedApart() throws Exception {
    String e = scheduled();
    JsonNode wrongAudience = approve(1, "--event", e, "--aud", OTHER.vmId());
    assertThat(wrongAudience.path("reasonCode").asText()).isEqualTo("wrong-audience");
    JsonNode expired = approve(1, "--event", e, "--iat-offset", "-1000");
    assertThat(expired.path("reasonCode").asText()).isEqualTo("expired");
    JsonNode untrusted = approve(1, "--event", e, "--key", dir.resolve("stranger.jwk").toString());
    assertThat(untrusted.path("reasonCode").asText()).isEqualTo("untrusted-key");
    for (JsonNode r : List.of(wrongAudience, expired, untrusted)) {
      assertThat(r.path("resultKind").asText()).isEqualTo("outcome");
      assertThat(r.path("outcome").asText()).isEqualTo("rejected");
    }
    assertThat(posted(e)).isFalse();

    String fresh = scheduled();
    Run replay = python("approve.py", args("--event", fresh, "--resend", "1"));
    assertThat(replay.exit()).as(replay.output()).isEqualTo(1);
    List<JsonNode> lines = jsonLines(replay.output());
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0).path("resultKind").asText()).isEqualTo("outcome");
    assertThat(lines.get(0).path("outcome").asText()).isEqualTo("accepted");
    assertThat(lines.get(1).path("resultKind").asText()).isEqualTo("replay");
    assertThat(lines.get(1).path("reasonCode").asText()).isEqualTo("replayed");
    assertThat(lines.get(1).path("commandId").asText())
        .isEqualTo(lines.get(0).path("commandId").asText());
  }

  /** {@code sebridge approve --vm <UPPER>}: routed by the canonical form, keyed as given. */
  @Test
  void anUpperCaseKeyOnTheCanonicalPartitionApproves() throws Exception {
    String e = scheduled();
    String upper = ME.vmId().toUpperCase();
    byte[] command =
        new dev.sebridge.command.CommandSigner(KEY, "java-sender")
            .sign(
                new dev.sebridge.command.CommandSigner.Request(
                    upper,
                    List.of(e),
                    "alice",
                    "upper-case key",
                    java.time.Instant.now(),
                    Duration.ofMinutes(5)));
    var sent =
        dev.sebridge.sink.kafka.KafkaCommandPublisher.publish(
            kafka.bootstrapServers(), commands, upper, command, Map.of());
    assertThat(sent.partition()).isEqualTo(CommandPartitioning.partitionFor(ME.vmId(), 4));
    await().atMost(Duration.ofSeconds(30)).until(() -> posted(e));
  }

  @Test
  void aBinaryModeCommandWithABadJwsGetsAResultWithItsCommandId() throws Exception {
    String id = "binary-bad-jws-1";
    Map<String, Object> p = Map.of("bootstrap.servers", kafka.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> rec =
          new ProducerRecord<>(
              commands,
              CommandPartitioning.partitionFor(ME.vmId(), 4),
              ME.vmId().toUpperCase().getBytes(StandardCharsets.UTF_8),
              "not-a-jws".getBytes(StandardCharsets.UTF_8));
      for (String[] h :
          new String[][] {
            {"ce_specversion", "1.0"},
            {"ce_id", id},
            {"ce_source", "urn:test"},
            {"ce_type", "dev.sebridge.command.approve.v1"},
            {"ce_subject", "E"},
            {"content-type", "application/jose"}
          }) {
        rec.headers().add(h[0], h[1].getBytes(StandardCharsets.UTF_8));
      }
      producer.send(rec).get();
    }
    EnvelopeFile out = new EnvelopeFile(dir.resolve("out.jsonl"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                out.read().stream().anyMatch(env -> env.at("/data/commandId").asText().equals(id)));
    JsonNode result =
        out.read().stream()
            .filter(env -> env.at("/data/commandId").asText().equals(id))
            .findFirst()
            .orElseThrow()
            .get("data");
    assertThat(result.path("outcome").asText()).isEqualTo("rejected");
    assertThat(result.path("reasonCode").asText()).isEqualTo("unsigned");
  }

  @Test
  void theDocsRoutingVectorsHoldForKafkaJavaAndForLibrdkafka() throws Exception {
    String doc = Files.readString(DOCS.resolve("approvals.md"), StandardCharsets.UTF_8);
    Matcher m =
        Pattern.compile(
                "(?m)^\\| `([0-9a-f-]{36})` \\| `([0-9A-F-]{36})` \\| (-?\\d+) \\| (\\d+) \\|"
                    + " (\\d+) \\| (\\d+) \\| (\\d+) \\|$")
            .matcher(doc);
    List<String[]> rows = new ArrayList<>();
    while (m.find()) {
      rows.add(
          new String[] {
            m.group(1), m.group(2), m.group(3), m.group(4), m.group(5), m.group(6), m.group(7)
          });
    }
    assertThat(rows).hasSizeGreaterThanOrEqualTo(4);
    int[] counts = {1, 4, 16, 32};
    Map<Integer, String> scratch = new HashMap<>();
    for (int n : counts) {
      String t = KafkaTestBroker.uniqueTopic("routing-" + n);
      kafka.createTopic(t, n);
      scratch.put(n, t);
    }
    for (String[] row : rows) {
      assertThat(Utils.murmur2(row[0].getBytes(StandardCharsets.UTF_8)))
          .as(row[0])
          .isEqualTo(Integer.parseInt(row[2]));
      for (int i = 0; i < counts.length; i++) {
        int expected = Integer.parseInt(row[3 + i]);
        assertThat(CommandPartitioning.partitionFor(row[0], counts[i])).isEqualTo(expected);
        assertThat(CommandPartitioning.partitionFor(row[1], counts[i])).isEqualTo(expected);
        assertThat(
                Utils.toPositive(Utils.murmur2(row[0].getBytes(StandardCharsets.UTF_8)))
                    % counts[i])
            .isEqualTo(expected);
      }
    }
    for (int i = 0; i < counts.length; i++) {
      List<String> a =
          new ArrayList<>(
              List.of("--bootstrap", kafka.bootstrapServers(), "--topic", scratch.get(counts[i])));
      rows.forEach(r -> a.add(r[0]));
      Run run = python("routing_check.py", a);
      assertThat(run.exit()).as(run.output()).isZero();
      for (String[] row : rows) {
        assertThat(run.output())
            .as("librdkafka murmur2_random, %d partitions", counts[i])
            .contains(row[0] + " " + row[3 + i]);
      }
    }
  }

  @Test
  void theNodeExampleApprovesToo() throws Exception {
    Path node = EXAMPLES.resolve("../node").normalize();
    if (!Files.exists(node.resolve("node_modules/.package-lock.json"))) {
      Run ci = exec(node, List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"));
      assertThat(ci.exit()).as(ci.output()).isZero();
    }
    String e = scheduled();
    Run r =
        exec(
            node,
            List.of(
                "node",
                "approve.mjs",
                "--bootstrap",
                kafka.bootstrapServers(),
                "--topic",
                commands,
                "--events-topic",
                events,
                "--vm",
                ME.vmId().toUpperCase(),
                "--event",
                e,
                "--key",
                dir.resolve("workflow.jwk").toString(),
                "--wait",
                "45"));
    assertThat(r.exit()).as(r.output()).isZero();
    List<JsonNode> lines = jsonLines(r.output());
    assertThat(lines.get(lines.size() - 1).path("outcome").asText()).isEqualTo("accepted");
    assertThat(posted(e)).isTrue();
  }

  private String scheduled() {
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())).withSource("User"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                new EnvelopeFile(dir.resolve("out.jsonl"))
                    .read().stream().anyMatch(e -> e.path("subject").asText().equals(id)));
    return id;
  }

  private boolean posted(String eventId) {
    return sim.startRequests().stream().anyMatch(r -> r.eventIds().contains(eventId));
  }

  /** Runs approve.py; its last line, the result, as JSON. */
  private JsonNode approve(int expectedExit, String... extra) throws Exception {
    Run r = python("approve.py", args(extra));
    assertThat(r.exit()).as(r.output()).isEqualTo(expectedExit);
    List<JsonNode> lines = jsonLines(r.output());
    assertThat(lines).as(r.output()).isNotEmpty();
    JsonNode result = lines.get(lines.size() - 1);
    assertThat(r.output()).contains("command " + result.path("commandId").asText() + " sent");
    return result;
  }

  private List<String> args(String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "--bootstrap",
                kafka.bootstrapServers(),
                "--topic",
                commands,
                "--events-topic",
                events,
                "--vm",
                ME.vmId(),
                "--key",
                dir.resolve("workflow.jwk").toString(),
                "--wait",
                "45"));
    for (int i = 0; i < extra.length; i += 2) {
      int at = a.indexOf(extra[i]);
      if (at >= 0 && i + 1 < extra.length && !extra[i + 1].startsWith("--")) {
        a.set(at + 1, extra[i + 1]); // override a default
      } else {
        a.add(extra[i]);
        if (i + 1 < extra.length && !extra[i + 1].startsWith("--")) {
          a.add(extra[i + 1]);
        } else {
          i--;
        }
      }
    }
    return a;
  }

  private static List<JsonNode> jsonLines(String output) {
    List<JsonNode> out = new ArrayList<>();
    for (String line : output.lines().toList()) {
      if (line.startsWith("{")) {
        try {
          out.add(JSON.readTree(line));
        } catch (Exception notJson) {
          // a log line
        }
      }
    }
    return out;
  }

  record Run(int exit, String output) {}

  private static Run exec(Path in, List<String> cmd) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder(cmd).directory(in.toFile()).redirectErrorStream(true).start();
    } catch (java.io.IOException e) {
      throw new AssertionError(cmd.get(0) + " is required (nodejs, npm; .ci/run installs them)", e);
    }
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), output);
  }

  private Run python(String script, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(PYTHON, EXAMPLES.resolve(script).toString()));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(output)
        .as("python3-confluent-kafka and python3-jwcrypto are required (.ci/run installs them)")
        .doesNotContain("ModuleNotFoundError");
    return new Run(p.exitValue(), output);
  }
}
