package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.agent.Agent;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A whole fleet on one machine, for the demo, the end-to-end tests and the benchmarks: an IMDS
 * simulator serving many VMs (zones, scale sets), one embedded Kafka broker, one real agent per VM
 * in this JVM, and the fleet service. Its approval key is fresh; the agents trust only it.
 */
public final class FleetLab implements AutoCloseable {
  public static final String EVENTS = "scheduled-events";
  public static final String COMMANDS = "sebridge-commands";
  public static final String APPROVER_TOKEN = "demo-approver-token-0123456789";
  public static final String READER_TOKEN = "demo-reader-token-0123456789abc";

  /**
   * What to build.
   *
   * @param vms how many VMs: a third in each of zones 1-3; the first two thirds in the scale sets
   *     {@code web} and {@code api}, the rest standalone
   * @param partitions partitions of the envelopes and commands topics
   * @param timeScale the simulator's simulated seconds per real second
   * @param approvalStartDelay how long after an approval the simulator starts the event (Azure is
   *     not instant either: long enough for every approved VM's command to arrive)
   */
  public record Options(int vms, int partitions, double timeScale, Duration approvalStartDelay) {
    public static Options demo() {
      return new Options(24, 3, 1, Duration.ofSeconds(3));
    }
  }

  private final Path work;
  private final EmbeddedKafkaBroker broker;
  private final ImdsSimulator sim;
  private final List<Agent> agents = new ArrayList<>();
  private final List<FleetService> services = new ArrayList<>();
  private final JWK key;

  private FleetLab(Path work, Options o) throws Exception {
    this.work = work;
    this.key =
        new ECKeyGenerator(Curve.P_256)
            .keyID("fleet-lab")
            .keyUse(KeyUse.SIGNATURE)
            .algorithm(JWSAlgorithm.ES256)
            .generate();
    Path keyFile = work.resolve("fleet-key.jwk");
    Files.writeString(keyFile, key.toJSONString(), StandardCharsets.UTF_8);
    StateDirectory.restrict(keyFile);
    Files.writeString(
        work.resolve("trusted.jwks"),
        new JWKSet(key.toPublicJWK()).toString(),
        StandardCharsets.UTF_8);
    writeTokens(work.resolve("tokens.yaml"));
    this.broker = new EmbeddedKafkaBroker(work.resolve("kafka")).start();
    broker.createTopic(EVENTS, o.partitions());
    broker.createCommandsTopic(COMMANDS, o.partitions());
    this.sim =
        ImdsSimulator.builder()
            .vms(vms(o.vms()))
            .timeScale(o.timeScale())
            .approvalStartDelay(o.approvalStartDelay())
            .build()
            .start();
  }

  /** Starts the broker and the simulator; agents and services come with their own calls. */
  public static FleetLab start(Path work, Options o) throws Exception {
    Files.createDirectories(work);
    return new FleetLab(work, o);
  }

  /** The simulated VMs: {@code web-N}, {@code api-N} in scale sets, {@code db-N} standalone. */
  public static List<SimVm> vms(int count) {
    List<SimVm> vms = new ArrayList<>();
    Map<String, Integer> inGroup = new HashMap<>();
    for (int i = 0; i < count; i++) {
      int third = i * 3 / count;
      String group = third == 0 ? "web" : third == 1 ? "api" : "db";
      String name = group + "-" + inGroup.merge(group, 1, Integer::sum);
      String vmId = NameBasedUuid.v5(NameBasedUuid.SEBRIDGE_NAMESPACE, "fleet-lab|" + i).toString();
      vms.add(
          new SimVm(
              name,
              vmId,
              null,
              "fleet-rg",
              "westeurope",
              Integer.toString(i % 3 + 1),
              group.equals("db") ? null : group,
              "Linux"));
    }
    return vms;
  }

  /** Starts one agent per simulated VM, several at once. */
  public List<Agent> startAgents(Duration pollInterval, Duration heartbeat) throws Exception {
    return startAgents(pollInterval, heartbeat, vm -> true);
  }

  /** Starts one agent per simulated VM that {@code withAgent} picks, several at once. */
  public List<Agent> startAgents(
      Duration pollInterval, Duration heartbeat, java.util.function.Predicate<SimVm> withAgent)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<Agent>> starting = new ArrayList<>();
      for (SimVm vm : sim.vms()) {
        if (!withAgent.test(vm)) {
          continue;
        }
        Configuration c = agentConfig(vm, pollInterval, heartbeat);
        starting.add(CompletableFuture.supplyAsync(() -> Agent.builder(c).build().start(), pool));
      }
      for (CompletableFuture<Agent> f : starting) {
        agents.add(f.join());
      }
    } finally {
      pool.shutdown();
    }
    return List.copyOf(agents);
  }

  private Configuration agentConfig(SimVm vm, Duration pollInterval, Duration heartbeat) {
    return Configuration.of(
        Map.ofEntries(
            Map.entry("imds.endpoint", sim.baseUri(vm.name()).toString()),
            Map.entry("imds.poll-interval", pollInterval.toMillis() + "ms"),
            Map.entry("state.dir", work.resolve("agents").resolve(vm.name()).toString()),
            Map.entry("sinks", "kafka"),
            Map.entry("sink.kafka.bootstrap-servers", broker.bootstrapServers()),
            Map.entry("sink.kafka.topic", EVENTS),
            Map.entry("commands.source", "kafka"),
            Map.entry("commands.kafka.bootstrap-servers", broker.bootstrapServers()),
            Map.entry("commands.kafka.topic", COMMANDS),
            Map.entry("commands.trusted-keys", work.resolve("trusted.jwks").toString()),
            Map.entry("heartbeat.interval", heartbeat.toMillis() + "ms"),
            Map.entry("http.port", "0")));
  }

  /** The fleet service's configuration here; {@code overrides} win. */
  public Map<String, String> fleetConfig(String instance, Map<String, String> overrides) {
    Map<String, String> m = new HashMap<>();
    m.put("fleet.kafka.bootstrap-servers", broker.bootstrapServers());
    m.put("fleet.topic.envelopes", EVENTS);
    m.put("fleet.topic.commands", COMMANDS);
    m.put("fleet.partitions", "3");
    m.put("fleet.replication-factor", "1");
    m.put("fleet.state-dir", work.resolve("fleet-" + instance).toString());
    m.put("fleet.http.port", "0");
    m.put("fleet.http.bind-address", "127.0.0.1");
    // The lab's browser reaches the page over plain HTTP on loopback: no TLS in front.
    m.put("fleet.http.secure-cookie", "false");
    m.put("fleet.auth.tokens-file", work.resolve("tokens.yaml").toString());
    m.put("fleet.signing.key-file", work.resolve("fleet-key.jwk").toString());
    m.putAll(overrides);
    return m;
  }

  /** Starts a fleet service instance in this JVM and waits until its streams run. */
  public FleetService startFleet(String instance, Map<String, String> overrides)
      throws InterruptedException {
    return startFleet(instance, overrides, b -> b);
  }

  /**
   * Starts a fleet service instance built with {@code customize} (a local Azure's credential and
   * HTTP client, for one) and waits until its streams run.
   */
  public FleetService startFleet(
      String instance,
      Map<String, String> overrides,
      java.util.function.UnaryOperator<dev.sebridge.fleet.FleetServiceBuilder> customize)
      throws InterruptedException {
    FleetService s =
        customize
            .apply(FleetService.builder(Configuration.of(fleetConfig(instance, overrides))))
            .build()
            .start();
    services.add(s);
    if (!s.awaitRunning(Duration.ofSeconds(60))) {
      throw new IllegalStateException("the fleet service did not start within 60 s");
    }
    return s;
  }

  public ImdsSimulator simulator() {
    return sim;
  }

  public EmbeddedKafkaBroker broker() {
    return broker;
  }

  public List<Agent> agents() {
    return List.copyOf(agents);
  }

  /** The key the fleet service signs with (its public half is the agents' only trusted key). */
  public JWK key() {
    return key;
  }

  public Path work() {
    return work;
  }

  /**
   * Every command id on the commands topic by target VM, aborted transactions' copies included (a
   * failed-over request must not have sent a VM two different ids).
   */
  public Map<String, java.util.Set<String>> commandIdsByVm() throws IOException {
    Map<String, java.util.Set<String>> out = new HashMap<>();
    try (org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> c =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                broker.bootstrapServers(),
                "isolation.level",
                "read_uncommitted"),
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      List<org.apache.kafka.common.TopicPartition> parts =
          c.partitionsFor(COMMANDS).stream()
              .map(p -> new org.apache.kafka.common.TopicPartition(COMMANDS, p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(parts);
      ObjectMapper json = new ObjectMapper();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        for (var r : c.poll(Duration.ofMillis(200))) {
          out.computeIfAbsent(r.key(), k -> new java.util.HashSet<>())
              .add(json.readTree(r.value()).path("id").asText());
        }
      }
    }
    return out;
  }

  private static void writeTokens(Path file) throws IOException {
    List<Map<String, String>> tokens =
        List.of(
            Map.of("token", APPROVER_TOKEN, "principal", "sre-oncall@demo", "role", "approver"),
            Map.of("token", READER_TOKEN, "principal", "dashboard@demo", "role", "reader"));
    new ObjectMapper(new YAMLFactory()).writeValue(file.toFile(), tokens);
    StateDirectory.restrict(file);
  }

  @Override
  public void close() {
    services.forEach(FleetService::close);
    agents.parallelStream().forEach(Agent::close);
    sim.close();
    broker.close();
  }
}
