package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.config.Configuration;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.Fault;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.testing.EnvelopeFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** The agent in-process against the simulator, with the file sink. */
@Execution(ExecutionMode.CONCURRENT)
class AgentTest {
  static final Duration WAIT = Duration.ofSeconds(15);
  static final SimVm VM0 = SimVm.of("WestNO_0", "11111111-0000-4000-8000-000000000000");
  static final SimVm VM1 = SimVm.of("WestNO_1", "11111111-0000-4000-8000-000000000001");

  @TempDir Path dir;
  ImdsSimulator sim;
  Agent agent;
  EnvelopeFile out;

  @BeforeEach
  void startSimulator() {
    sim = ImdsSimulator.builder().vm(VM0).vm(VM1).build().start();
    out = new EnvelopeFile(dir.resolve("out.jsonl"));
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.close();
    }
    sim.close();
  }

  Configuration config(Map<String, String> extra) {
    Map<String, String> m = new HashMap<>();
    m.put("imds.endpoint", sim.baseUri(VM0.name()).toString());
    m.put("imds.poll-interval", "200ms");
    m.put("imds.max-backoff", "1s");
    m.put("state.dir", dir.resolve("state").toString());
    m.put("sinks", "file");
    m.put("sink.file.path", dir.resolve("out.jsonl").toString());
    m.put("http.port", "0");
    m.putAll(extra);
    return Configuration.of(m);
  }

  Agent startAgent(Map<String, String> extra) {
    agent = Agent.builder(config(extra)).build().start();
    await().atMost(WAIT).until(() -> agent.identity().isPresent() && agent.stats().documents() > 0);
    return agent;
  }

  /**
   * The first heartbeat follows the first poll and carries it (it used to go out as soon as the
   * identity was known, "0 polls", and the next one an interval later). The first poll is held 2 s
   * by the simulator, so the old order is certain, not a race.
   */
  @Test
  void theFirstHeartbeatFollowsTheFirstPollAndCarriesIt() throws Exception {
    sim.injectFault(new dev.sebridge.simulator.Fault.Delay(2_000), 1);
    agent = Agent.builder(config(Map.of("heartbeat.interval", "1h"))).build().start();
    await()
        .atMost(WAIT)
        .until(
            () ->
                out.read().stream()
                    .anyMatch(
                        e -> e.get("type").asText().equals("dev.sebridge.agent.heartbeat.v1")));
    List<com.fasterxml.jackson.databind.JsonNode> beats =
        out.read().stream()
            .filter(e -> e.get("type").asText().equals("dev.sebridge.agent.heartbeat.v1"))
            .toList();
    assertThat(beats).hasSize(1);
    assertThat(beats.get(0).path("data").path("polls").path("total").asLong())
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void aReaderTailingTheFileSinkSkipsTheLineBeingAppended() throws Exception {
    startAgent(Map.of());
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())).withId("T-1"));
    out.await(1, WAIT);
    agent.close();
    agent = null;
    Path file = dir.resolve("out.jsonl");
    String whole = java.nio.file.Files.readString(file);
    // what a reader sees while the next envelope is half written
    java.nio.file.Files.writeString(
        file, whole.substring(0, whole.indexOf('\n') / 2), java.nio.file.StandardOpenOption.APPEND);
    assertThat(out.transitions()).containsExactly("T-1:Scheduled");
  }

  @Test
  void reportsTheDocumentedLifecycleOfAFreezeOnTwoVms() {
    startAgent(Map.of());
    String id =
        sim.addEvent(
            EventSpec.scheduled("Freeze", List.of(VM0.name(), VM1.name())).withDuration(5));
    out.await(1, WAIT);
    sim.startEvent(id);
    out.await(2, WAIT);
    sim.completeEvent(id);
    List<JsonNode> envs = out.await(3, WAIT);
    assertThat(out.transitions())
        .containsExactly(id + ":Scheduled", id + ":Started", id + ":Completed");
    assertThat(envs)
        .extracting(e -> e.get("type").asText())
        .containsExactly(
            "dev.sebridge.scheduledevent.scheduled.v1",
            "dev.sebridge.scheduledevent.started.v1",
            "dev.sebridge.scheduledevent.completed.v1");
    assertThat(envs)
        .extracting(e -> e.at("/data/documentIncarnation").asLong())
        .containsExactly(2L, 3L, 4L);
    assertThat(envs)
        .allSatisfy(
            e -> {
              assertThat(e.get("partitionkey").asText()).isEqualTo(VM0.vmId());
              assertThat(e.get("source").asText()).isEqualTo(VM0.resourceId());
              assertThat(e.at("/data/affectsThisVm").asBoolean()).isTrue();
              assertThat(e.at("/data/vm/name").asText()).isEqualTo(VM0.name());
            });
    assertThat(envs.get(0).at("/data/event/Resources/1").asText()).isEqualTo(VM1.name());
    assertThat(envs.get(0).at("/data/notBeforeUtc").isTextual()).isTrue();
    assertThat(envs.get(1).at("/data/notBeforeUtc").isNull()).isTrue();
  }

  @Test
  void theHttpEndpointListensOnLoopbackUnlessConfiguredOtherwise() throws Exception {
    startAgent(Map.of("http.port", String.valueOf(freePort())));
    assertThat(agent.httpAddress())
        .hasValueSatisfying(a -> assertThat(a.isLoopbackAddress()).isTrue());
    agent.close();
    agent = null;
    startAgent(Map.of("http.port", String.valueOf(freePort()), "http.bind-address", "0.0.0.0"));
    assertThat(agent.httpAddress())
        .hasValueSatisfying(a -> assertThat(a.isAnyLocalAddress()).isTrue());
  }

  static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void transientFaultsNeverLookLikeTransitions() {
    startAgent(Map.of());
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM0.name())));
    out.await(1, WAIT);
    sim.injectFault(new Fault.Status(500, null), 3);
    sim.injectFault(new Fault.Status(429, null), 2);
    sim.injectFault(new Fault.Status(410, null), 2);
    sim.injectFault(new Fault.Status(404, null), 1);
    sim.injectFault(new Fault.Garbage(null), 2);
    sim.injectFault(new Fault.NotADocument(null), 2);
    sim.injectFault(new Fault.Garbage("{\"DocumentIncarnation\": 99, \"Events\": []"), 1);
    sim.injectFault(new Fault.Delay(6_000), 1); // longer than imds.request-timeout
    await().atMost(Duration.ofSeconds(60)).until(() -> sim.pendingFaults() == 0);
    long docsBefore = agent.stats().documents();
    await().atMost(WAIT).until(() -> agent.stats().documents() > docsBefore + 2);
    assertThat(out.transitions()).containsExactly(id + ":Scheduled");
    assertThat(agent.stats().failures()).isGreaterThanOrEqualTo(13);
    sim.completeEvent(id);
    out.await(2, WAIT);
    assertThat(out.transitions()).containsExactly(id + ":Scheduled", id + ":Canceled");
  }

  @Test
  void hardwareFailureIsStartedThenCompleted() {
    startAgent(Map.of());
    String id =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM0.name())).asHardwareFailure());
    out.await(1, WAIT);
    sim.completeEvent(id);
    out.await(2, WAIT);
    assertThat(out.transitions()).containsExactly(id + ":Started", id + ":Completed");
  }

  @Test
  void unknownTypesAndFieldsPassThroughVerbatim() {
    startAgent(Map.of());
    String id =
        sim.addEvent(
            EventSpec.scheduled("HotPatch", List.of(VM1.name()))
                .withExtraFields(Map.of("Impact", Map.of("Network", "degraded"), "Phase", 3)));
    JsonNode e = out.await(1, WAIT).get(0);
    assertThat(e.at("/data/event/EventType").asText()).isEqualTo("HotPatch");
    assertThat(e.at("/data/event/Impact/Network").asText()).isEqualTo("degraded");
    assertThat(e.at("/data/event/Phase").asInt()).isEqualTo(3);
    assertThat(e.at("/data/affectsThisVm").asBoolean()).isFalse();
    assertThat(e.get("subject").asText()).isEqualTo(id);
  }

  @Test
  void aRestartResumesFromDurableStateWithoutLossOrRepeats() throws Exception {
    startAgent(Map.of());
    // Runs while the agent is down: NotBefore passes, it starts and finishes.
    String ran =
        sim.addEvent(
            EventSpec.scheduled("Freeze", List.of(VM0.name())).withNotice(1).withStartedFor(0.5));
    // Canceled by Azure while the agent is down, long before its NotBefore.
    String canceled = sim.addEvent(EventSpec.scheduled("Redeploy", List.of(VM0.name())));
    // Starts while the agent is down, still running when it is back.
    String started = sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM0.name())));
    out.await(3, WAIT);
    agent.close();
    agent = null;
    sim.cancelEvent(canceled);
    sim.startEvent(started);
    await().atMost(WAIT).until(() -> sim.eventStatus(ran).isEmpty());
    startAgent(Map.of());
    out.await(6, WAIT);
    assertThat(out.transitions())
        .containsExactly(
            ran + ":Scheduled",
            canceled + ":Scheduled",
            started + ":Scheduled",
            started + ":Started",
            ran + ":Completed*",
            canceled + ":Canceled*");
  }

  @Test
  void aCorruptStateFileIsMovedAsideAndTheAgentGoesOn() throws Exception {
    Path state = dir.resolve("state");
    Files.createDirectories(state);
    Files.writeString(state.resolve("tracker.json"), "{\"format\":1,\"events\":[{\"event\":42}]");
    String id = sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())));
    startAgent(Map.of());
    out.await(1, WAIT);
    assertThat(out.transitions()).containsExactly(id + ":Scheduled");
    try (var files = Files.list(state)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("tracker.json.corrupt-"));
    }
  }

  @Test
  void aRejectedRequestIsNeverRetriedInATightLoop() throws Exception {
    // An api-version IMDS does not know: every poll is a 400 (our bug, not IMDS's).
    agent = Agent.builder(config(Map.of("imds.api-version", "2031-01-01"))).build().start();
    Thread.sleep(3_000);
    // At 200ms that would be 15 polls; after a 400 the agent waits 30s before trying again.
    assertThat(sim.scheduledEventsGets()).isEqualTo(1L);
    assertThat(agent.stats().failures(dev.sebridge.imds.ImdsFailure.Kind.BAD_REQUEST)).isPositive();
    assertThat(out.transitionEnvelopes()).isEmpty();
  }

  @Test
  void everyChangeGetsItsOwnId() {
    startAgent(Map.of());
    String id = sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())));
    out.await(1, WAIT);
    sim.rescheduleEvent(id, 3600);
    out.await(2, WAIT);
    sim.startEvent(id);
    out.await(3, WAIT);
    sim.completeEvent(id);
    List<JsonNode> envs = out.await(4, WAIT);
    assertThat(out.transitions())
        .containsExactly(id + ":Scheduled", id + ":Updated", id + ":Started", id + ":Completed");
    Set<String> ids = new HashSet<>();
    envs.forEach(e -> assertThat(ids.add(e.get("id").asText())).isTrue());
  }

  @Test
  void theFirstCallMayTakeLongerThanTheUsualTimeout() {
    sim.close();
    // IMDS enabling Scheduled Events for the VM: the first answer takes 4s.
    sim = ImdsSimulator.builder().vm(VM0).firstCallDelay(Duration.ofSeconds(4)).build().start();
    sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())));
    agent =
        Agent.builder(
                config(Map.of("imds.request-timeout", "1s", "imds.first-request-timeout", "30s")))
            .build()
            .start();
    out.await(1, WAIT);
    assertThat(sim.scheduledEventsGets()).isGreaterThanOrEqualTo(1);
    assertThat(agent.stats().failures()).isZero();
  }

  static String get(int port, String path, int[] status) throws Exception {
    var http =
        java.net.http.HttpClient.newBuilder()
            .proxy(java.net.http.HttpClient.Builder.NO_PROXY)
            .build();
    var r =
        http.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port + path))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    status[0] = r.statusCode();
    return r.body();
  }

  static double metric(String scrape, String line) {
    return scrape
        .lines()
        .filter(l -> l.startsWith(line + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(-1);
  }

  @Test
  void metricsMoveDuringAScenarioAndReadinessFlipsWithImds() throws Exception {
    int port;
    try (var s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    startAgent(Map.of("http.port", String.valueOf(port), "heartbeat.interval", "1s"));
    int[] status = new int[1];
    assertThat(get(port, "/healthz", status)).contains("UP");
    assertThat(status[0]).isEqualTo(200);
    String before = get(port, "/metrics", status);
    assertThat(status[0]).isEqualTo(200);
    String id = sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM0.name())));
    out.await(1, WAIT);
    sim.startEvent(id);
    await().atMost(WAIT).until(() -> out.transitions().size() >= 2);
    sim.injectFault(new Fault.Status(500, null), 2);
    await().atMost(WAIT).until(() -> sim.pendingFaults() == 0);
    final int p = port;
    await()
        .atMost(WAIT)
        .until(
            () -> {
              String m = get(p, "/metrics", new int[1]);
              return metric(m, "sebridge_envelopes_published_total{sink=\"file\"}") >= 2
                  && metric(m, "sebridge_imds_errors_total{class=\"server_error\"}") >= 2;
            });
    String after = get(port, "/metrics", status);
    assertThat(metric(after, "sebridge_imds_polls_total"))
        .isGreaterThan(metric(before, "sebridge_imds_polls_total"));
    assertThat(metric(after, "sebridge_transitions_total{transition=\"scheduled\"}")).isEqualTo(1);
    assertThat(metric(after, "sebridge_transitions_total{transition=\"started\"}")).isEqualTo(1);
    assertThat(metric(after, "sebridge_outbox_depth{sink=\"file\"}")).isGreaterThanOrEqualTo(0);
    assertThat(after)
        .contains("sebridge_imds_poll_latency_seconds_count")
        .contains("sebridge_publish_lag_seconds_count{sink=\"file\"}");
    // Heartbeats go through the outbox too, and validate against their schema (EnvelopeFile).
    await()
        .atMost(WAIT)
        .until(
            () ->
                out.read().stream()
                    .anyMatch(
                        e -> e.get("type").asText().equals("dev.sebridge.agent.heartbeat.v1")));

    assertThat(get(port, "/readyz", status)).contains("READY");
    assertThat(status[0]).isEqualTo(200);
    sim.injectFault(new Fault.Status(503, null), 10_000);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              get(p, "/readyz", status);
              return status[0] == 503;
            });
    assertThat(get(port, "/readyz", status)).contains("IMDS has not answered");
    sim.clearFaults();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              get(p, "/readyz", status);
              return status[0] == 200;
            });
  }

  /** The agent with the test command source ({@link FailingCommandSourceProvider}) and a key. */
  private void startAgentWithTestCommandSource(Map<String, String> more) throws Exception {
    java.nio.file.Files.writeString(
        dir.resolve("keys.jwks"),
        dev.sebridge.command.TestKeys.trustedSet(dev.sebridge.command.TestKeys.es256("k1")));
    Map<String, String> settings = new java.util.HashMap<>(more);
    settings.put("commands.source", FailingCommandSourceProvider.NAME);
    settings.put("commands.trusted-keys", dir.resolve("keys.jwks").toString());
    startAgent(settings);
  }

  /**
   * A read of the command source that does not return (a source that hangs, or a record whose
   * handling never ends and never kills the agent, so it is never skipped) turns /readyz red after
   * {@link CommandPump#STUCK}, naming it; before, readiness stayed green while approvals by command
   * waited behind it. Green again once the read returns.
   */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void aReadThatDoesNotReturnTurnsReadinessRed() throws Exception {
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.polls.set(0);
    java.util.concurrent.CountDownLatch poll = new java.util.concurrent.CountDownLatch(1);
    dev.sebridge.testing.MutableClock clock =
        new dev.sebridge.testing.MutableClock(java.time.Instant.now());
    java.nio.file.Files.writeString(
        dir.resolve("keys.jwks"),
        dev.sebridge.command.TestKeys.trustedSet(dev.sebridge.command.TestKeys.es256("k1")));
    try {
      agent =
          Agent.builder(
                  config(
                      Map.of(
                          "commands.source",
                          FailingCommandSourceProvider.NAME,
                          "commands.trusted-keys",
                          dir.resolve("keys.jwks").toString())))
              .clock(clock)
              .build()
              .start();
      String stuck = "has not returned since";
      await()
          .atMost(WAIT)
          .until(
              () ->
                  agent.readinessProblems().stream()
                      .noneMatch(p -> p.startsWith("approval commands")));
      int held = FailingCommandSourceProvider.held.get();
      FailingCommandSourceProvider.pollGate = poll; // the reads go well, then one hangs
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.held.get() > held);
      assertThat(agent.readinessProblems()).noneMatch(p -> p.contains(stuck));
      clock.advance(CommandPump.STUCK.plusSeconds(1));
      assertThat(agent.readinessProblems()).anyMatch(p -> p.contains(stuck));
      FailingCommandSourceProvider.pollGate = null;
      poll.countDown(); // the read returns
      await()
          .atMost(WAIT)
          .until(() -> agent.readinessProblems().stream().noneMatch(p -> p.contains(stuck)));
    } finally {
      FailingCommandSourceProvider.pollGate = null;
      poll.countDown();
    }
  }

  /** Defect 3: a command pump that fails is reported on /readyz, and comes back by itself. */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void aFailingCommandPumpTurnsReadinessRedUntilItRecovers() throws Exception {
    FailingCommandSourceProvider.failures.set(3);
    startAgentWithTestCommandSource(Map.of());
    await()
        .atMost(WAIT)
        .until(
            () ->
                agent.readinessProblems().stream()
                    .anyMatch(p -> p.contains("approval commands: handling failed")));
    // Opened again with backoff after each failure: the fourth open works.
    await().atMost(WAIT).until(() -> agent.readinessProblems().isEmpty());
    assertThat(FailingCommandSourceProvider.opened.get()).isGreaterThanOrEqualTo(4);
  }

  /** Not ready while the command source is still connecting: approvals by command do not work. */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void notReadyUntilTheCommandSourceIsRead() throws Exception {
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.opened.set(0);
    java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    FailingCommandSourceProvider.openGate = gate;
    try {
      startAgentWithTestCommandSource(Map.of());
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.opened.get() == 1);
      assertThat(agent.readinessProblems())
          .contains("approval commands: not reading the command source yet");
      gate.countDown();
      await().atMost(WAIT).until(() -> agent.readinessProblems().isEmpty());
    } finally {
      FailingCommandSourceProvider.openGate = null;
      gate.countDown();
    }
  }

  /**
   * A stop while the command source hangs in a read (a broker gone) interrupts the pump after the
   * shutdown timeout, and the source's close may hang too (Kafka's admin client waits for a pending
   * call); either way it is a clean stop. Before, the interrupted thread failed to write its
   * reading marker (ClosedByInterruptException), or never reached it, so the next start counted a
   * death at that position, and three such restarts skipped the record there, a genuine command, as
   * poison.
   */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void aStopThatInterruptsAHangingReadIsACleanStopNotADeath() throws Exception {
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.polls.set(0);
    FailingCommandSourceProvider.position = 7L;
    java.util.concurrent.CountDownLatch poll = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch close = new java.util.concurrent.CountDownLatch(1);
    FailingCommandSourceProvider.pollGate = poll;
    FailingCommandSourceProvider.closeGate = close;
    try {
      for (int run = 1; run <= 3; run++) {
        int before = FailingCommandSourceProvider.polls.get();
        startAgentWithTestCommandSource(Map.of("agent.shutdown-timeout", "1s"));
        await().atMost(WAIT).until(() -> FailingCommandSourceProvider.polls.get() > before);
        assertThat(marker().path("crashes").asInt()).as("deaths counted at start %d", run).isZero();
        agent.close(); // the pump's thread still hangs in the source's close
        agent = null;
        JsonNode m = marker();
        assertThat(m.path("running").asBoolean()).as("marker after stop %d: %s", run, m).isFalse();
        assertThat(m.path("position").asLong()).isEqualTo(7L);
      }
    } finally {
      FailingCommandSourceProvider.pollGate = null;
      FailingCommandSourceProvider.closeGate = null;
      FailingCommandSourceProvider.position = null;
      poll.countDown();
      close.countDown();
    }
  }

  /**
   * A clean stop keeps the deaths counted at a position unless the run found out that no record
   * there kills it: not while the read there hangs, nor after reads that found nothing while the
   * source did not know it was at the end (Event Hubs' first polls while it connects, Kafka's
   * before its first fetch); it forgives them once a read there found the end of the stream.
   * Before, any clean stop forgave them.
   */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void aCleanStopForgivesDeathsOnlyWhenTheRunFoundOutNoRecordThereKillsIt() throws Exception {
    writeMarker("{\"position\":7,\"crashes\":1,\"running\":true}");
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.polls.set(0);
    FailingCommandSourceProvider.position = 7L;
    java.util.concurrent.CountDownLatch poll = new java.util.concurrent.CountDownLatch(1);
    FailingCommandSourceProvider.pollGate = poll;
    try {
      startAgentWithTestCommandSource(Map.of("agent.shutdown-timeout", "1s"));
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.polls.get() > 0);
      agent.close(); // the read at 7 still hangs: interrupted
      agent = null;
      JsonNode m = marker();
      assertThat(m.path("running").asBoolean()).as("marker %s", m).isFalse();
      assertThat(m.path("crashes").asInt()).as("the deaths at 7, read hanging").isEqualTo(2);

      FailingCommandSourceProvider.pollGate = null;
      FailingCommandSourceProvider.notAtEnd = true;
      int before = FailingCommandSourceProvider.polls.get();
      startAgentWithTestCommandSource(Map.of());
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.polls.get() > before + 3);
      agent.close();
      agent = null;
      assertThat(marker().path("crashes").asInt())
          .as("the deaths at 7, reads that found nothing but not the end")
          .isEqualTo(2);

      FailingCommandSourceProvider.notAtEnd = false;
      int again = FailingCommandSourceProvider.polls.get();
      startAgentWithTestCommandSource(Map.of());
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.polls.get() > again + 3);
      agent.close();
      agent = null;
      assertThat(marker().path("crashes").asInt()).as("the end found at 7").isZero();
    } finally {
      FailingCommandSourceProvider.pollGate = null;
      FailingCommandSourceProvider.notAtEnd = false;
      FailingCommandSourceProvider.position = null;
      poll.countDown();
    }
  }

  /**
   * After a death while reading, the source is read one record at a time, and only up to {@link
   * CommandPump#CAREFUL_RECORDS} records past the position of the death: then it is opened again to
   * read in batches. (A VM hard-reset by its own maintenance dies that way; reading one record a
   * time for the rest of the run cost a few fsyncs a record, and a flood behind it took hours.)
   */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void afterADeathTheSourceIsReadOneAtATimeOnlyPastTheRecordsOneReadCouldHold() throws Exception {
    writeMarker("{\"position\":7,\"crashes\":0,\"running\":true}");
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.opened.set(0);
    FailingCommandSourceProvider.oneAtATime.set(0);
    FailingCommandSourceProvider.position = 7L;
    FailingCommandSourceProvider.advancing = true;
    FailingCommandSourceProvider.endAsked.set(0);
    try {
      startAgentWithTestCommandSource(Map.of());
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.opened.get() >= 2);
      assertThat(FailingCommandSourceProvider.oneAtATime.get())
          .as("the first source only")
          .isEqualTo(1);
      assertThat(FailingCommandSourceProvider.position)
          .isGreaterThan(7L + CommandPump.CAREFUL_RECORDS);
      // Every read moved the position (other VMs' records): the source was never asked whether
      // it was at the end (Event Hubs would ask its hub each time).
      assertThat(FailingCommandSourceProvider.endAsked).hasValue(0);
    } finally {
      FailingCommandSourceProvider.advancing = false;
      FailingCommandSourceProvider.position = null;
    }
  }

  /**
   * A read that finds nothing at the end of the stream marks the reading marker idle: a death then
   * (a quiet VM hard-reset) is not counted toward skipping the record that comes there next.
   */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void aReadThatFindsNothingMarksTheMarkerIdle() throws Exception {
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.polls.set(0);
    FailingCommandSourceProvider.position = 9L;
    FailingCommandSourceProvider.endAsked.set(0);
    try {
      startAgentWithTestCommandSource(Map.of());
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.polls.get() > 2);
      JsonNode m = marker();
      assertThat(m.path("position").asLong()).isEqualTo(9L);
      assertThat(m.path("idle").asBoolean()).as("marker %s", m).isTrue();
      assertThat(m.path("running").asBoolean()).isTrue();
      // Asked once: an idle marker does not ask again (Event Hubs asks its hub each time).
      assertThat(FailingCommandSourceProvider.endAsked).hasValue(1);
    } finally {
      FailingCommandSourceProvider.position = null;
    }
  }

  /**
   * A source that starts behind the marker (at the VM's last own command, the marker past the other
   * VMs' records read since) and finds the end there marks the marker idle where it counts deaths:
   * nothing is there either (Event Hubs' retention took those records). Before, only a read at the
   * marker's own position could, so such a VM's hard resets were all counted.
   */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void aSourceAtItsEndBehindTheMarkerMarksItIdleWhereItIs() throws Exception {
    writeMarker("{\"position\":9,\"crashes\":0,\"running\":true}");
    FailingCommandSourceProvider.failures.set(0);
    FailingCommandSourceProvider.polls.set(0);
    FailingCommandSourceProvider.position = 5L;
    try {
      startAgentWithTestCommandSource(Map.of());
      await().atMost(WAIT).until(() -> FailingCommandSourceProvider.polls.get() > 2);
      JsonNode m = marker();
      assertThat(m.path("position").asLong()).isEqualTo(9L);
      assertThat(m.path("crashes").asInt())
          .as("the death before: cleared, no record there to die of")
          .isZero();
      assertThat(m.path("idle").asBoolean()).as("marker %s", m).isTrue();
    } finally {
      FailingCommandSourceProvider.position = null;
    }
  }

  /** Defect 4: sinks made before the outbox are shut down when the outbox cannot be made. */
  @Test
  void aFailedBuildReleasesTheSinksAndTheStateDirectory() throws Exception {
    Files.createDirectories(dir.resolve("state"));
    Files.writeString(dir.resolve("state/outbox"), "a file where the outbox directory goes");
    dev.sebridge.testing.InMemorySink sink = new dev.sebridge.testing.InMemorySink("mem");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Agent.builder(config(Map.of())).extraSink(sink).build())
        .hasMessageContaining("outbox");
    assertThat(sink.isShutdown()).as("the sink was shut down").isTrue();
    dev.sebridge.state.StateDirectory.open(dir.resolve("state"), java.time.Clock.systemUTC())
        .close();
  }

  /** Everything under state.dir is the agent's alone: directories 0700, files 0600. */
  @Test
  @ResourceLock(FailingCommandSourceProvider.NAME) // its settings are static
  void everyDirectoryAndFileUnderTheStateDirectoryIsPrivate() throws Exception {
    FailingCommandSourceProvider.failures.set(0);
    startAgentWithTestCommandSource(Map.of("approval.policy", "user-initiated"));
    String id = sim.addEvent(EventSpec.scheduled("Reboot", List.of(VM0.name())).withSource("User"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                out.read().stream()
                    .anyMatch(
                        e -> e.get("type").asText().equals("dev.sebridge.approval.result.v1")));
    await().atMost(WAIT).until(() -> Files.exists(dir.resolve("state/commands")));
    await().atMost(WAIT).until(() -> sim.eventStatus(id).equals(Optional.of("Started")));
    // Stopped first: a running agent writes tracker.json through tracker.json.tmp and a move, and a
    // walk that lists the temporary file and then reads it finds it gone (a failure of this test,
    // not of the agent). What the agent left is what is checked.
    agent.close();
    agent = null;
    Path state = dir.resolve("state");
    List<String> loose = new java.util.ArrayList<>();
    try (var paths = Files.walk(state)) {
      paths.forEach(
          p -> {
            try {
              String mode =
                  java.nio.file.attribute.PosixFilePermissions.toString(
                      Files.getPosixFilePermissions(p));
              String expected = Files.isDirectory(p) ? "rwx------" : "rw-------";
              if (!mode.equals(expected)) {
                loose.add(state.relativize(p) + " is " + mode);
              }
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
    }
    assertThat(loose).isEmpty();
    try (var paths = Files.walk(state)) {
      assertThat(paths.map(p -> state.relativize(p).toString()))
          .contains("outbox", "tracker.json", "commands", "lock");
    }
  }

  @Test
  void readinessFollowsImds() {
    startAgent(Map.of());
    assertThat(agent.readinessProblems()).isEmpty();
    sim.injectFault(new Fault.Status(500, null), 1000);
    await().atMost(Duration.ofSeconds(20)).until(() -> !agent.readinessProblems().isEmpty());
    assertThat(agent.readinessProblems()).anyMatch(p -> p.contains("IMDS has not answered"));
  }

  /** The test command source's reading marker, as a run before left it. */
  private void writeMarker(String json) {
    try (dev.sebridge.state.StateDirectory state =
        dev.sebridge.state.StateDirectory.open(dir.resolve("state"), java.time.Clock.systemUTC())) {
      state.write(
          "commands/reading-" + FailingCommandSourceProvider.NAME,
          json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  /** The test command source's reading marker as the agent wrote it. */
  private JsonNode marker() throws java.io.IOException {
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(
            dir.resolve("state/commands/reading-" + FailingCommandSourceProvider.NAME).toFile());
  }
}
