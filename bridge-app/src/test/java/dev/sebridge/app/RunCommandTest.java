package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.Fault;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.testing.EnvelopeFile;
import dev.sebridge.testing.FakeProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The acceptance command, as a real process:
 *
 * <pre>
 * sebridge run --set imds.endpoint=http://127.0.0.1:PORT --set sinks=file --set sink.file.path=out.jsonl
 *   --set state.dir=DIR --set imds.poll-interval=250ms --set http.port=0
 * </pre>
 */
@ResourceLock(value = TestResources.CPU, mode = ResourceAccessMode.READ)
class RunCommandTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final SimVm VM = SimVm.of("WestNO_0", "22222222-0000-4000-8000-000000000000");

  @TempDir Path dir;
  ImdsSimulator sim;
  EnvelopeFile out;
  final List<AgentProcess> processes = new ArrayList<>();

  @BeforeEach
  void startSimulator() {
    sim =
        ImdsSimulator.builder()
            .vm(VM)
            .vm(SimVm.of("WestNO_1", "22222222-0000-4000-8000-000000000001"))
            .build()
            .start();
    out = new EnvelopeFile(dir.resolve("out.jsonl"));
  }

  @AfterEach
  void stop() {
    processes.forEach(AgentProcess::close);
    sim.close();
  }

  AgentProcess run(List<String> jvmArgs, Map<String, String> env, String... extraSets)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--set",
                "imds.endpoint=" + sim.baseUri(),
                "--set",
                "sinks=file",
                "--set",
                "sink.file.path=" + dir.resolve("out.jsonl"),
                "--set",
                "state.dir=" + dir.resolve("state"),
                "--set",
                "imds.poll-interval=250ms",
                "--set",
                "http.port=0"));
    for (String s : extraSets) {
      args.add("--set");
      args.add(s);
    }
    AgentProcess p =
        AgentProcess.start(dir.resolve("logs"), jvmArgs, env, args.toArray(String[]::new));
    processes.add(p);
    // Ready once it has polled: IMDS counts the GETs.
    long before = sim.scheduledEventsGets();
    await().atMost(WAIT).until(() -> sim.scheduledEventsGets() > before + 1 || !p.isAlive());
    assertThat(p.isAlive()).as("agent died: %s", p.stderr()).isTrue();
    return p;
  }

  AgentProcess run() throws Exception {
    return run(List.of(), Map.of());
  }

  /**
   * Where compute metadata is not served (Microsoft's mock server answers 404), the agent does not
   * wait forever for a vmId: after five attempts it takes the SMBIOS system UUID (here a file with
   * a generation 1 VM's reading, swapped into Azure's order) and says so in its heartbeat; the
   * configured name still wins.
   */
  @Test
  void withoutComputeMetadataTheVmIdComesFromSmbiosAndTheHeartbeatSaysSo() throws Exception {
    sim.close();
    sim = ImdsSimulator.builder().vm(VM).withoutComputeMetadata().build().start();
    Path uuid =
        java.nio.file.Files.writeString(
            dir.resolve("product_uuid"), "544CDFD0-CB4E-4B4A-9954-5BDF3ED5C3B8\n");
    run(
        List.of(),
        Map.of(),
        "vm.name=" + VM.name(),
        "vm.smbios-uuid-file=" + uuid,
        "vm.smbios-uuid-order=swapped");
    String id = sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())));
    JsonNode scheduled = out.await(1, Duration.ofSeconds(90)).get(0);
    assertThat(scheduled.at("/partitionkey").asText())
        .isEqualTo("d0df4c54-4ecb-4a4b-9954-5bdf3ed5c3b8");
    assertThat(scheduled.at("/subject").asText()).isEqualTo(id);
    await()
        .atMost(WAIT)
        .until(
            () ->
                out.read().stream()
                    .anyMatch(
                        e -> e.get("type").asText().equals("dev.sebridge.agent.heartbeat.v1")));
    JsonNode hb =
        out.read().stream()
            .filter(e -> e.get("type").asText().equals("dev.sebridge.agent.heartbeat.v1"))
            .findFirst()
            .orElseThrow();
    assertThat(hb.at("/dataschema").asText()).isEqualTo("urn:sebridge:schema:heartbeat:1.2");
    assertThat(hb.at("/data/vm/sources/vmId").asText()).isEqualTo("smbios-swapped");
    assertThat(hb.at("/data/vm/sources/name").asText()).isEqualTo("config");
    assertThat(sim.computeGets()).as("compute metadata asked first").isGreaterThanOrEqualTo(5);
  }

  @Test
  void documentationSequenceThenSigtermExitsZero() throws Exception {
    AgentProcess agent = run();
    String id =
        sim.addEvent(
            EventSpec.scheduled("Freeze", List.of("WestNO_0", "WestNO_1")).withDuration(5));
    out.await(1, WAIT);
    sim.startEvent(id);
    out.await(2, WAIT);
    sim.completeEvent(id);
    List<JsonNode> envs = out.await(3, WAIT);
    assertThat(out.transitions())
        .containsExactly(id + ":Scheduled", id + ":Started", id + ":Completed");
    assertThat(envs)
        .extracting(e -> e.at("/data/documentIncarnation").asLong())
        .containsExactly(2L, 3L, 4L);
    assertThat(agent.terminate(WAIT)).as(agent.stderr()).isZero();
    assertThat(agent.stderr()).contains("SIGTERM received").contains("sebridge agent stopped");
  }

  @Test
  void transientFaultsCauseNoFalseTransition() throws Exception {
    // Backoff capped at 1 s (5 s by default), as in AgentTest: the faults test what the agent makes
    // of each answer, not how long it waits between them.
    run(List.of(), Map.of(), "imds.max-backoff=1s");
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of("WestNO_0")));
    out.await(1, WAIT);
    sim.injectFault(new Fault.Status(500, null), 3);
    sim.injectFault(new Fault.Status(429, null), 2);
    sim.injectFault(new Fault.Status(410, null), 3);
    sim.injectFault(new Fault.Garbage(null), 2);
    sim.injectFault(new Fault.NotADocument("{\"DocumentIncarnation\": 3}"), 1);
    sim.injectFault(new Fault.Garbage("<html><body>Service Unavailable</body></html>"), 1);
    await().atMost(Duration.ofSeconds(60)).until(() -> sim.pendingFaults() == 0);
    long gets = sim.scheduledEventsGets();
    await().atMost(WAIT).until(() -> sim.scheduledEventsGets() > gets + 3);
    assertThat(out.transitions()).containsExactly(id + ":Scheduled");
    sim.startEvent(id);
    sim.injectFault(new Fault.Status(503, null), 2);
    out.await(2, WAIT);
    assertThat(out.transitions()).containsExactly(id + ":Scheduled", id + ":Started");
  }

  @Test
  void hardwareFailure() throws Exception {
    run();
    String id =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of("WestNO_0")).asHardwareFailure());
    out.await(1, WAIT);
    sim.completeEvent(id);
    out.await(2, WAIT);
    assertThat(out.transitions()).containsExactly(id + ":Started", id + ":Completed");
  }

  @Test
  void unknownEventTypesAndExtraFieldsPassThrough() throws Exception {
    run();
    sim.addEvent(
        EventSpec.scheduled("LiveResize", List.of("WestNO_0"))
            .withExtraFields(Map.of("Impact", Map.of("Cpu", "paused"), "Ring", 7)));
    JsonNode e = out.await(1, WAIT).get(0);
    assertThat(e.at("/data/event/EventType").asText()).isEqualTo("LiveResize");
    assertThat(e.at("/data/event/Impact/Cpu").asText()).isEqualTo("paused");
    assertThat(e.at("/data/event/Ring").asInt()).isEqualTo(7);
  }

  @Test
  void killNineDuringAScheduledEventAndRestartAfterItFinished() throws Exception {
    AgentProcess first = run();
    String id =
        sim.addEvent(
            EventSpec.scheduled("Freeze", List.of("WestNO_0")).withNotice(2).withStartedFor(1));
    JsonNode scheduled = out.await(1, WAIT).get(0);
    first.kill9();
    await()
        .atMost(WAIT)
        .until(() -> sim.eventStatus(id).isEmpty()); // started and finished meanwhile
    run();
    await().atMost(WAIT).until(() -> out.distinctTransitions().size() >= 2);
    // A kill -9 between the outbox write and the state write sends Scheduled again, identical.
    assertThat(out.distinctTransitions()).containsExactly(id + ":Scheduled", id + ":Completed*");
    // The id is the deterministic one: UUIDv5(vmId|EventId|transition|incarnation).
    String expected =
        dev.sebridge.envelope.NameBasedUuid.v5(
                dev.sebridge.envelope.NameBasedUuid.SEBRIDGE_NAMESPACE,
                VM.vmId() + "|" + id.toLowerCase() + "|scheduled|2")
            .toString();
    assertThat(scheduled.get("id").asText()).isEqualTo(expected);
    assertThat(UUID.fromString(out.transitionEnvelopes().get(1).get("id").asText()).version())
        .isEqualTo(5);
  }

  @Test
  void aResendAfterACrashBeforeCommitCarriesTheSameId() throws Exception {
    AgentProcess first = run();
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of("WestNO_0")));
    out.await(1, WAIT);
    // The crash comes after the file sink confirmed and moved its cursor past everything in the
    // file; otherwise the outbox would (rightly) redeliver it too and the count below would
    // depend on when the kill lands.
    awaitFileSinkCursorCoversTheFile();
    first.kill9();
    // As if the crash came between the sink's fsync and the state write: the state is gone.
    Files.deleteIfExists(dir.resolve("state").resolve("tracker.json"));
    run();
    List<JsonNode> envs = out.await(2, WAIT);
    assertThat(out.transitions()).containsExactly(id + ":Scheduled", id + ":Scheduled");
    assertThat(envs.get(1).get("id").asText()).isEqualTo(envs.get(0).get("id").asText());
    assertThat(EnvelopeFactory.DATA_SCHEMA).isEqualTo(envs.get(0).get("dataschema").asText());
  }

  /** The outbox numbers records from 1 and the file sink writes one line per record. */
  private void awaitFileSinkCursorCoversTheFile() {
    Path cursor = dir.resolve("state").resolve("outbox").resolve("cursor-file");
    await()
        .atMost(WAIT)
        .until(
            () -> {
              int lines = out.read().size();
              return Files.exists(cursor)
                  && Long.parseLong(Files.readString(cursor).trim()) >= lines;
            });
  }

  @Test
  void proxiesInTheEnvironmentAndSystemPropertiesAreBypassed() throws Exception {
    try (FakeProxy proxy = new FakeProxy()) {
      Map<String, String> env = new HashMap<>();
      for (String v :
          List.of(
              "HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")) {
        env.put(v, proxy.url());
      }
      env.put("NO_PROXY", "");
      env.put("no_proxy", "");
      List<String> props =
          List.of(
              "-Dhttp.proxyHost=127.0.0.1",
              "-Dhttp.proxyPort=" + proxy.port(),
              "-Dhttps.proxyHost=127.0.0.1",
              "-Dhttps.proxyPort=" + proxy.port(),
              "-Dhttp.nonProxyHosts=",
              "-Djava.net.useSystemProxies=true");
      run(props, env);
      String id = sim.addEvent(EventSpec.scheduled("Freeze", List.of("WestNO_0")));
      out.await(1, WAIT);
      assertThat(out.transitions()).containsExactly(id + ":Scheduled");
      assertThat(proxy.connections()).isZero();
      assertThat(sim.requestHeaders())
          .allSatisfy(h -> assertThat(h).doesNotContainKey("x-forwarded-for"));
    }
  }

  @Test
  void badConfigurationExitsTwoNamingTheKey() throws Exception {
    AgentProcess p =
        AgentProcess.start(
            dir.resolve("logs"),
            List.of(),
            Map.of("SEBRIDGE_IMDS_POLL_INTERVAL", "50ms"),
            "run",
            "--set",
            "sinks=file",
            "--set",
            "state.dir=" + dir.resolve("s"));
    processes.add(p);
    assertThat(p.waitFor(WAIT)).isEqualTo(2);
    assertThat(p.stderr())
        .contains("imds.poll-interval: 50ms is below the minimum of 200ms")
        .contains("sink.file.path: is required")
        .doesNotContain("Exception");
  }

  @Test
  void noSecretEverReachesTheLogsOrCheckConfig() throws Exception {
    String password = "pa55-hunter2-do-not-log";
    com.nimbusds.jose.jwk.JWK privateKey = dev.sebridge.command.TestKeys.es256("leaky");
    Path keys = dir.resolve("trusted-with-private-part.jwk");
    java.nio.file.Files.writeString(
        keys, privateKey.toJSONString()); // operator mistake: private key on the VM
    String privateD = privateKey.toJSONObject().get("d").toString();
    List<String> secrets =
        List.of(
            "sink.kafka.producer.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
                + " required username=\"$ConnectionString\" password=\""
                + password
                + "\";",
            "sink.kafka.producer.ssl.key.password=" + password);
    AgentProcess p =
        run(
            List.of(),
            Map.of(
                "SEBRIDGE_SINK_KAFKA_PRODUCER_SSL_KEYSTORE_PASSWORD",
                password,
                "SEBRIDGE_LOG_FORMAT",
                "json"),
            "sinks=kafka,file",
            "sink.kafka.bootstrap-servers=127.0.0.1:1",
            "sink.kafka.producer.security.protocol=SASL_PLAINTEXT",
            "sink.kafka.producer.sasl.mechanism=PLAIN",
            secrets.get(0),
            secrets.get(1),
            "commands.source=kafka",
            "commands.kafka.bootstrap-servers=127.0.0.1:1",
            "commands.trusted-keys=" + keys,
            "publish.warn-after=1s",
            // Its first attempt fails after 2 s waiting for the broker's metadata, not 10.
            "sink.kafka.producer.max.block.ms=2000",
            // The Kafka sink never connects: its flush on SIGTERM would wait the whole 10 s.
            "agent.shutdown-timeout=2s");
    sim.addEvent(EventSpec.scheduled("Freeze", List.of("WestNO_0")));
    out.await(1, WAIT);
    // The Kafka sink has failed long enough to say so, with its last error.
    await().atMost(WAIT).until(() -> p.stderr().contains("sink kafka has been failing for"));
    assertThat(p.terminate(WAIT)).isZero();
    // The command source never reached its broker: the stop is still a clean one for it.
    assertThat(
            new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dir.resolve("state/commands/reading-kafka").toFile())
                .path("running")
                .asBoolean())
        .as("the reading marker after a stop")
        .isFalse();
    String logs = p.stderr() + p.stdout();
    assertThat(logs).contains("private key material").contains("\"level\":\"WARN\"");
    assertThat(logs).doesNotContain(password).doesNotContain(privateD);
    AgentProcess check =
        AgentProcess.start(
            dir.resolve("logs"),
            List.of(),
            Map.of(),
            "check-config",
            "--set",
            secrets.get(0),
            "--set",
            secrets.get(1),
            "--set",
            "sinks=kafka",
            "--set",
            "sink.kafka.bootstrap-servers=h:9092");
    processes.add(check);
    assertThat(check.waitFor(WAIT)).isZero();
    assertThat(check.stdout()).contains("sink.kafka.producer.ssl.key.password = ********");
    assertThat(check.stdout() + check.stderr()).doesNotContain(password);
  }

  @Test
  void aStateDirectoryInUseIsRefused() throws Exception {
    run();
    AgentProcess second =
        AgentProcess.start(
            dir.resolve("logs"),
            List.of(),
            Map.of(),
            "run",
            "--set",
            "imds.endpoint=" + sim.baseUri(),
            "--set",
            "state.dir=" + dir.resolve("state"),
            "--set",
            "http.port=0");
    processes.add(second);
    assertThat(second.waitFor(WAIT)).isEqualTo(2);
    assertThat(second.stderr()).contains("in use by another sebridge agent");
  }
}
