package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.KafkaTestBroker;
import dev.sebridge.testing.EnvelopeFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Simulator -> `sebridge run` (real processes) -> a real Kafka broker -> a plain KafkaConsumer,
 * checked against the simulator's ground truth: zero lost transitions, order per vmId, duplicates
 * only as identical envelopes.
 *
 * <p>Each step of a scenario waits until every agent has been served the simulator's current
 * document ({@link ImdsSimulator#servedIncarnation}), never for a fixed time: on a busy machine an
 * agent can be slower than any sleep, and a state it was never served is one it cannot report. The
 * agents' logs of each test stay in {@code target/agent-logs/KafkaEndToEndTest/<test>/}.
 */
// Exclusive: timed broker outages.
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ_WRITE)
class KafkaEndToEndTest {
  static final Duration WAIT = Duration.ofSeconds(60);
  static final ObjectMapper JSON = new ObjectMapper();
  static final SimVm VM0 = SimVm.of("WestNO_0", "33333333-0000-4000-8000-000000000000");
  static final SimVm VM1 = SimVm.of("WestNO_1", "33333333-0000-4000-8000-000000000001");
  static KafkaTestBroker kafka;

  @TempDir Path dir;
  ImdsSimulator sim;
  String topic;
  Path logs;
  final List<AgentProcess> agents = new ArrayList<>();
  final Set<String> polling = new LinkedHashSet<>();

  @BeforeAll
  static void startKafka() {
    kafka = KafkaTestBroker.start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  @BeforeEach
  void start(TestInfo test) throws IOException {
    logs = AgentProcess.logDir(getClass(), test);
    sim = ImdsSimulator.builder().vm(VM0).vm(VM1).build().start();
    topic = KafkaTestBroker.uniqueTopic("scheduled-events");
    kafka.createTopic(topic, 3);
  }

  @AfterEach
  void stop() {
    agents.forEach(AgentProcess::close);
    sim.close();
  }

  AgentProcess agent(SimVm vm, String sinks) throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("imds.endpoint", sim.baseUri(vm.name()).toString());
    settings.put("state.dir", dir.resolve("state-" + vm.name()).toString());
    settings.put("sinks", sinks);
    settings.put("sink.file.path", dir.resolve("out-" + vm.name() + ".jsonl").toString());
    settings.put("sink.kafka.bootstrap-servers", kafka.bootstrapServers());
    settings.put("sink.kafka.topic", topic);
    settings.put("publish.max-backoff", "2s");
    AgentProcess p = AgentProcess.runPolling(sim, WAIT, logs, List.of(), Map.of(), settings);
    agents.add(p);
    polling.add(vm.name());
    return p;
  }

  /** Waits until every running agent has been served the simulator's current document. */
  void settle() {
    AgentProcess.awaitServed(sim, WAIT, polling);
  }

  /**
   * "EventId:Transition" per vmId, deduplicated by envelope id; asserts duplicates are identical.
   */
  Map<String, List<String>> readTopic(int expected) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records =
        new ArrayList<>(
            kafka
                .readUntil(
                    topic,
                    read ->
                        read.stream()
                                .filter(r -> isTransition(r))
                                .map(r -> id(r))
                                .distinct()
                                .count()
                            >= expected,
                    WAIT)
                .stream()
                .filter(r -> isTransition(r))
                .toList());
    long distinct = records.stream().map(r -> id(r)).distinct().count();
    if (distinct < expected) {
      throw new AssertionError(
          "%d of %d transitions reached %s within %s: %s (agents' logs: %s)"
              .formatted(
                  distinct,
                  expected,
                  topic,
                  WAIT,
                  records.stream().map(r -> describe(r)).toList(),
                  logs.toAbsolutePath()));
    }
    Map<String, JsonNode> byId = new HashMap<>();
    Map<String, List<String>> perVm = new LinkedHashMap<>();
    // Kafka keeps order per partition; per vmId is per key, so read partition by partition.
    records.sort(
        java.util.Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
            .thenComparingLong(ConsumerRecord::offset));
    for (ConsumerRecord<byte[], byte[]> r : records) {
      JsonNode env = JSON.readTree(r.value());
      String vmId = new String(r.key(), StandardCharsets.UTF_8);
      assertThat(env.get("partitionkey").asText()).isEqualTo(vmId);
      JsonNode first = byId.putIfAbsent(env.get("id").asText(), env);
      if (first != null) {
        assertThat(env).as("a duplicate must be the same envelope").isEqualTo(first);
        continue;
      }
      perVm.computeIfAbsent(vmId, k -> new ArrayList<>()).add(EnvelopeFile.describe(env));
    }
    return perVm;
  }

  /** Heartbeats share the topic; the ground truth is about transitions. */
  static boolean isTransition(ConsumerRecord<byte[], byte[]> r) {
    try {
      return JSON.readTree(r.value())
          .get("type")
          .asText()
          .startsWith("dev.sebridge.scheduledevent.");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static String describe(ConsumerRecord<byte[], byte[]> r) {
    try {
      return new String(r.key(), StandardCharsets.UTF_8)
          + "/"
          + EnvelopeFile.describe(JSON.readTree(r.value()));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static String id(ConsumerRecord<byte[], byte[]> r) {
    try {
      return JSON.readTree(r.value()).get("id").asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void everyTransitionOfAMultiEventScenarioReachesKafkaKeyedByVmId() throws Exception {
    agent(VM0, "kafka");
    agent(VM1, "kafka");
    String freeze =
        sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name(), VM1.name())).withId("F-1"));
    String reboot = sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM1.name())).withId("R-1"));
    settle();
    sim.startEvent(freeze);
    settle();
    sim.cancelEvent(reboot);
    settle();
    String hw =
        sim.addEvent(
            EventSpec.scheduled("Redeploy", List.of(VM0.name())).asHardwareFailure().withId("H-1"));
    settle();
    sim.completeEvent(freeze);
    sim.completeEvent(hw);
    List<String> expected =
        List.of(
            "F-1:Scheduled",
            "R-1:Scheduled",
            "F-1:Started",
            "R-1:Canceled",
            "H-1:Started",
            "F-1:Completed",
            "H-1:Completed");
    Map<String, List<String>> got = readTopic(2 * expected.size());
    assertThat(got).containsOnlyKeys(VM0.vmId(), VM1.vmId());
    assertThat(got.get(VM0.vmId())).containsExactlyElementsOf(expected);
    assertThat(got.get(VM1.vmId())).containsExactlyElementsOf(expected);
  }

  @Test
  void aThirtySecondBrokerOutageLosesNothingAndKeepsOrder() throws Exception {
    agent(VM0, "kafka");
    agent(VM1, "kafka");
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name(), VM1.name())).withId("F-2"));
    sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM1.name())).withId("R-2"));
    settle();
    kafka.takeDown();
    long down = System.nanoTime();
    sim.startEvent("F-2");
    settle();
    sim.addEvent(EventSpec.scheduled("Redeploy", List.of(VM0.name())).withId("D-2"));
    settle();
    sim.cancelEvent("R-2");
    settle();
    sim.completeEvent("F-2");
    settle();
    sim.startEvent("D-2");
    settle();
    long elapsed = Duration.ofNanos(System.nanoTime() - down).toMillis();
    Thread.sleep(Math.max(0, 30_000 - elapsed));
    kafka.bringBack();
    sim.completeEvent("D-2");
    List<String> expected =
        List.of(
            "F-2:Scheduled",
            "R-2:Scheduled",
            "F-2:Started",
            "D-2:Scheduled",
            "R-2:Canceled",
            "F-2:Completed",
            "D-2:Started",
            "D-2:Completed");
    Map<String, List<String>> got = readTopic(2 * expected.size());
    assertThat(got.get(VM0.vmId())).containsExactlyElementsOf(expected);
    assertThat(got.get(VM1.vmId())).containsExactlyElementsOf(expected);
  }

  @Test
  void killNineWhileTheBrokerIsDownAndRestartAfterItIsBackLosesNothing() throws Exception {
    AgentProcess first = agent(VM0, "kafka,file");
    EnvelopeFile file = new EnvelopeFile(dir.resolve("out-" + VM0.name() + ".jsonl"));
    sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM0.name())).withId("K-1"));
    settle();
    kafka.takeDown();
    sim.startEvent("K-1");
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())).withId("K-2"));
    // The file sink is fed from the fsynced outbox: once it has both, so has the outbox.
    file.await(3, WAIT);
    assertThat(file.transitions()).containsExactly("K-1:Scheduled", "K-1:Started", "K-2:Scheduled");
    first.kill9(); // the outbox holds Started and K-2 Scheduled, never acknowledged by Kafka
    polling.remove(VM0.name());
    sim.completeEvent("K-1");
    kafka.bringBack();
    agent(VM0, "kafka,file");
    Map<String, List<String>> got = readTopic(4);
    // K-1 completed while the agent was down: certain, but not when: inferred (marked *).
    assertThat(got.get(VM0.vmId()))
        .containsExactly("K-1:Scheduled", "K-1:Started", "K-2:Scheduled", "K-1:Completed*");
  }

  @Test
  void withTheBrokerDownTheFileSinkStaysCurrent() throws Exception {
    kafka.takeDown();
    try {
      agent(VM0, "kafka,file");
      EnvelopeFile file = new EnvelopeFile(dir.resolve("out-" + VM0.name() + ".jsonl"));
      sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())).withId("B-1"));
      file.await(1, Duration.ofSeconds(10));
      sim.startEvent("B-1");
      file.await(2, Duration.ofSeconds(10));
      assertThat(file.transitions()).containsExactly("B-1:Scheduled", "B-1:Started");
    } finally {
      kafka.bringBack();
    }
    Map<String, List<String>> got = readTopic(2);
    assertThat(got.get(VM0.vmId())).containsExactly("B-1:Scheduled", "B-1:Started");
  }
}
