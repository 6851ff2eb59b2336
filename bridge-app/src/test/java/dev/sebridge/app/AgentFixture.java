package dev.sebridge.app;

import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.agent.Agent;
import dev.sebridge.command.TestKeys;
import dev.sebridge.config.Configuration;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.KafkaCommandPublisher;
import dev.sebridge.sink.kafka.KafkaTestBroker;
import dev.sebridge.testing.EnvelopeFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The end-to-end tests' one fixture: an IMDS simulator serving the test's VMs, a real Kafka broker
 * (one per test class, when asked for), a working directory, trusted keys, and the agents the test
 * starts (real {@code sebridge run} processes, or in-process {@link Agent}s), each with its own
 * state directory and a file sink to read its envelopes from. Everything a test started is stopped
 * after it; the broker after the class.
 *
 * <pre>
 * {@literal @}RegisterExtension static final AgentFixture fixture = AgentFixture.withKafka(VM0, VM1);
 * </pre>
 */
final class AgentFixture
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  static final Duration WAIT = Duration.ofSeconds(60);
  static final JWK KEY = TestKeys.es256("sre-approvals");

  private final List<SimVm> vms;
  private final boolean kafka;
  private KafkaTestBroker broker;
  private ImdsSimulator sim;
  private Path dir;
  private final List<AgentProcess> processes = new ArrayList<>();
  private final List<Agent> agents = new ArrayList<>();

  private AgentFixture(boolean kafka, List<SimVm> vms) {
    this.kafka = kafka;
    this.vms = List.copyOf(vms);
  }

  static AgentFixture withKafka(SimVm... vms) {
    return new AgentFixture(true, List.of(vms));
  }

  static AgentFixture of(SimVm... vms) {
    return new AgentFixture(false, List.of(vms));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (kafka) {
      broker = KafkaTestBroker.start();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    sim = ImdsSimulator.builder().vms(vms).build().start();
    dir = Files.createTempDirectory("sebridge-e2e-");
    Files.writeString(dir.resolve("trusted.jwks"), TestKeys.trustedSet(KEY));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    processes.forEach(AgentProcess::close);
    processes.clear();
    agents.forEach(Agent::close);
    agents.clear();
    sim.close();
    deleteQuietly(dir);
  }

  ImdsSimulator sim() {
    return sim;
  }

  KafkaTestBroker kafka() {
    if (broker == null) {
      throw new IllegalStateException("this fixture has no broker: use AgentFixture.withKafka");
    }
    return broker;
  }

  Path dir() {
    return dir;
  }

  Path trustedKeys() {
    return dir.resolve("trusted.jwks");
  }

  /** A new topic on the broker. */
  String topic(String prefix, int partitions) {
    String topic = KafkaTestBroker.uniqueTopic(prefix);
    kafka().createTopic(topic, partitions);
    return topic;
  }

  /** A new commands topic, configured as the agents require. */
  String commandsTopic(String prefix, int partitions) {
    String topic = KafkaTestBroker.uniqueTopic(prefix);
    kafka().createCommandsTopic(topic, partitions);
    return topic;
  }

  /** The JSON Lines file the agent of {@code vm} writes with the file sink. */
  EnvelopeFile out(SimVm vm) {
    return new EnvelopeFile(outPath(vm));
  }

  Path outPath(SimVm vm) {
    return dir.resolve("out-" + vm.name() + ".jsonl");
  }

  Path stateDir(SimVm vm) {
    return dir.resolve("state-" + vm.name());
  }

  /**
   * The settings every agent of {@code vm} starts with: this VM's IMDS, its own state directory,
   * the file sink, no HTTP endpoint, polls every 250 ms. {@code extra} adds and replaces.
   */
  Map<String, String> settings(SimVm vm, Map<String, String> extra) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("imds.endpoint", sim.baseUri(vm.name()).toString());
    m.put("imds.poll-interval", "250ms");
    m.put("state.dir", stateDir(vm).toString());
    m.put("sinks", "file");
    m.put("sink.file.path", outPath(vm).toString());
    m.put("http.port", "0");
    m.put("publish.max-backoff", "2s");
    m.putAll(extra);
    return m;
  }

  /** With commands read from {@code topic} on the broker, signed with {@link #KEY}. */
  Map<String, String> commandsFrom(String topic) {
    return Map.of(
        "commands.source",
        "kafka",
        "commands.kafka.bootstrap-servers",
        kafka().bootstrapServers(),
        "commands.kafka.topic",
        topic,
        "commands.trusted-keys",
        trustedKeys().toString());
  }

  /** {@code sebridge run} as a process, once it polls. */
  AgentProcess process(SimVm vm, List<String> jvmArgs, Map<String, String> extra) {
    return track(
        () ->
            AgentProcess.runPolling(
                sim, WAIT, dir.resolve("logs"), jvmArgs, Map.of(), settings(vm, extra)));
  }

  /** {@code sebridge run} as a process, without waiting for it to poll. */
  AgentProcess processNoWait(SimVm vm, List<String> jvmArgs, Map<String, String> extra) {
    return track(
        () -> AgentProcess.run(dir.resolve("logs"), jvmArgs, Map.of(), settings(vm, extra)));
  }

  private AgentProcess track(ProcessStart start) {
    try {
      AgentProcess p = start.start();
      synchronized (processes) {
        processes.add(p);
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An agent in this JVM, started. */
  Agent inProcess(SimVm vm, Map<String, String> extra) {
    Agent a = Agent.builder(Configuration.of(settings(vm, extra))).build();
    agents.add(a);
    return a.start();
  }

  /** Stops an in-process agent before the test ends (a restart). */
  void stop(Agent a) {
    agents.remove(a);
    a.close();
  }

  /**
   * A TCP port nothing listens on right now, outside the ephemeral range (no outgoing connection
   * can take it before the server binds it).
   */
  static int freePort() {
    return dev.sebridge.sink.kafka.embedded.LoopbackPorts.free();
  }

  /** Publishes a command keyed by {@code vmId} on {@code topic}. */
  void send(String topic, String vmId, byte[] command) throws Exception {
    KafkaCommandPublisher.publish(kafka().bootstrapServers(), topic, vmId, command, Map.of());
  }

  private static void deleteQuietly(Path dir) {
    try (var s = Files.walk(dir)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temp dir left behind is harmless
    }
  }

  @FunctionalInterface
  private interface ProcessStart {
    AgentProcess start() throws IOException;
  }
}
