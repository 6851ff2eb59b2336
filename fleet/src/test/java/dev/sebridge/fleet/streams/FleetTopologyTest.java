package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.approval.ApprovalResult;
import dev.sebridge.approval.ReasonCode;
import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.TrustedKeys;
import dev.sebridge.command.Verdict;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.track.TransitionType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fleet topology, driven record by record ({@link TopologyTestDriver}, no broker). Isolated: it
 * counts skipped records across every kind ({@link SkipAndCount} is JVM-wide), so another class
 * skipping records at the same time (CentralEventsTopologyTest's malformed deliveries) would be
 * counted here.
 */
@org.junit.jupiter.api.parallel.Isolated
class FleetTopologyTest {
  static final Topics TOPICS = new Topics("fleet", "envelopes", "commands", "approvals");
  static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
  static final String REBOOT = "A1B2C3D4-0000-4000-8000-00000000AAAA";

  final MutableClock clock = new MutableClock(T0);
  final AgentEnvelopes agents = new AgentEnvelopes(clock);
  final VmIdentity vm1 = AgentEnvelopes.vm("vm-1", "web-1", "1", "web");
  final VmIdentity vm2 = AgentEnvelopes.vm("vm-2", "web-2", "2", "web");
  final VmIdentity vm3 = AgentEnvelopes.vm("vm-3", "db-1", "3", null);
  final List<Duration> approvalDelays = new ArrayList<>();

  ECKey key;
  TopologyTestDriver driver;
  TestInputTopic<String, byte[]> envelopes;
  TestInputTopic<String, ApprovalRequest> approvals;
  TestOutputTopic<String, byte[]> commands;

  @BeforeEach
  void start() throws Exception {
    key = new ECKeyGenerator(Curve.P_256).keyID("fleet-key").generate();
    start(Retention.closedEvents(Duration.ofHours(24)));
  }

  /** The topology with these retention rules, on a fresh driver. */
  void start(Retention retention) {
    TopologyObserver observer =
        new TopologyObserver() {

          @Override
          public void approvedAfter(Duration sinceScheduled) {
            approvalDelays.add(sinceScheduled);
          }
        };
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "fleet-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, SkipAndCount.class.getName());
    driver =
        new TopologyTestDriver(
            FleetTopology.build(
                TOPICS,
                new CommandIssuer(new CommandSigner(key, "sebridge-fleet"), Duration.ofMinutes(5)),
                3,
                retention,
                observer,
                dev.sebridge.fleet.rollout.Policies.none(),
                Duration.ofSeconds(1),
                () -> 0,
                ReplayGate.NONE,
                ViewsGate.NONE,
                Membership.AGENTS),
            p,
            T0);
    envelopes =
        driver.createInputTopic(
            TOPICS.envelopes(), new StringSerializer(), new ByteArraySerializer());
    approvals =
        driver.createInputTopic(
            TOPICS.approvals(),
            new StringSerializer(),
            new JsonSerde<>(ApprovalRequest.class).serializer());
    commands =
        driver.createOutputTopic(
            TOPICS.commands(), new StringDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  void send(VmIdentity vm, byte[] envelope) {
    envelopes.pipeInput(vm.vmId(), envelope, clock.instant());
  }

  void transition(TransitionType t, VmIdentity vm, String status, String... resources) {
    send(
        vm,
        agents.transition(
            t,
            vm,
            AgentEnvelopes.imdsEvent(
                REBOOT, "Reboot", status, List.of(resources), T0.plusSeconds(900)),
            false));
  }

  EventView event(String id) {
    KeyValueStore<String, EventView> s = driver.getKeyValueStore(FleetTopology.EVENTS_VIEW);
    return s.get(id.toLowerCase(java.util.Locale.ROOT));
  }

  VmView vm(String vmId) {
    KeyValueStore<String, VmView> s = driver.getKeyValueStore(FleetTopology.VMS_VIEW);
    return s.get(vmId);
  }

  RequestView request(String id) {
    KeyValueStore<String, RequestView> s = driver.getKeyValueStore(FleetTopology.REQUESTS_VIEW);
    return s.get(id);
  }

  @Test
  void oneEventReportedByManyVmsIsOneEventCountedOncePerVm() {
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1", "web-2", "db-1");
    transition(TransitionType.SCHEDULED, vm2, "Scheduled", "web-1", "web-2", "db-1");
    transition(TransitionType.SCHEDULED, vm3, "Scheduled", "web-1", "web-2", "db-1");
    // an agent that restarts re-publishes: the same VM twice is still one VM
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1", "web-2", "db-1");

    EventView e = event(REBOOT);
    assertThat(e.eventId()).isEqualTo(REBOOT);
    assertThat(e.eventType()).isEqualTo("Reboot");
    assertThat(e.eventSource()).isEqualTo("Platform");
    assertThat(e.notBefore()).isEqualTo(T0.plusSeconds(900));
    assertThat(e.resources()).containsExactly("web-1", "web-2", "db-1");
    assertThat(e.counts()).isEqualTo(Map.of("scheduled", 3));
    assertThat(e.vms().get("vm-1").zone()).isEqualTo("1");
    assertThat(e.vms().get("vm-2").scaleSet()).isEqualTo("web");
    assertThat(e.open()).isTrue();
    assertThat(vm("vm-3").openEvents()).containsExactly(REBOOT.toLowerCase(java.util.Locale.ROOT));
    assertThat(vm("vm-3").name()).isEqualTo("db-1");
    assertThat(vm("vm-3").subscriptionId()).isEqualTo("00000000-0000-0000-0000-000000000000");
  }

  @Test
  void eachVmMovesThroughApprovedStartedCompletedAndTheEventClosesThenExpires() {
    TestOutputTopic<String, byte[]> views =
        driver.createOutputTopic(
            TOPICS.of(FleetTopology.VIEWS_EVENTS),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1", "web-2");
    transition(TransitionType.SCHEDULED, vm2, "Scheduled", "web-1", "web-2");
    clock.advance(Duration.ofSeconds(42));
    send(
        vm1,
        agents.result(
            vm1,
            "fleet:r1:vm-1",
            "alice",
            ApprovalResult.Outcome.ACCEPTED,
            ReasonCode.ACCEPTED,
            List.of(REBOOT),
            ApprovalResult.Kind.OUTCOME));
    EventView e = event(REBOOT);
    assertThat(e.vms().get("vm-1").status()).isEqualTo("approved");
    assertThat(e.vms().get("vm-1").approval().requestedBy()).isEqualTo("alice");
    assertThat(e.vms().get("vm-1").approval().reasonCode()).isEqualTo("accepted");
    assertThat(approvalDelays).containsExactly(Duration.ofSeconds(42));

    transition(TransitionType.STARTED, vm1, "Started", "web-1", "web-2");
    transition(TransitionType.COMPLETED, vm1, "Started", "web-1", "web-2");
    assertThat(event(REBOOT).counts()).isEqualTo(Map.of("completed", 1, "scheduled", 1));
    assertThat(vm("vm-1").openEvents()).isEmpty();
    assertThat(event(REBOOT).open()).isTrue();

    // vm-2 was down while it ended: its agent infers it
    send(
        vm2,
        agents.transition(
            TransitionType.COMPLETED,
            vm2,
            AgentEnvelopes.imdsEvent(
                REBOOT, "Reboot", "Scheduled", List.of("web-1", "web-2"), null),
            true));
    EventView closed = event(REBOOT);
    assertThat(closed.vms().get("vm-2").status()).isEqualTo("inferred");
    assertThat(closed.vms().get("vm-2").guess()).isEqualTo("completed");
    assertThat(closed.open()).isFalse();
    // Its view written packed once closed (ViewPacking), as JSON while open; the stores read both.
    List<byte[]> written = views.readValuesToList();
    assertThat(written.get(written.size() - 1)[0]).isEqualTo(ViewPacking.PACKED);
    assertThat(written.subList(0, written.size() - 1))
        .isNotEmpty()
        .allSatisfy(v -> assertThat(v[0]).isEqualTo((byte) '{'));

    // queryable by id for the retention, then gone
    driver.advanceWallClockTime(Duration.ofHours(23));
    assertThat(event(REBOOT)).isNotNull();
    driver.advanceWallClockTime(Duration.ofHours(2));
    assertThat(event(REBOOT)).isNull();
  }

  /**
   * {@code fleet.closed-views-packed} off (before a rollback to a version that cannot read packed
   * views): a closed event's view is written as JSON, read as before, and expires as before.
   */
  @Test
  void withPackingOffAClosedEventsViewIsWrittenAsJson() {
    driver.close();
    start(new Retention(Duration.ofHours(24), Retention.VMS, Retention.HISTORY, false));
    TestOutputTopic<String, byte[]> views =
        driver.createOutputTopic(
            TOPICS.of(FleetTopology.VIEWS_EVENTS),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1");
    transition(TransitionType.STARTED, vm1, "Started", "web-1");
    transition(TransitionType.COMPLETED, vm1, "Started", "web-1");
    assertThat(event(REBOOT).open()).isFalse();
    assertThat(views.readValuesToList()).allSatisfy(v -> assertThat(v[0]).isEqualTo((byte) '{'));
    driver.advanceWallClockTime(Duration.ofHours(25));
    assertThat(event(REBOOT)).isNull();
  }

  @Test
  void aVmWithoutEnvelopesForThreeHeartbeatIntervalsIsSilentAndBackWithItsNextOne() {
    send(vm1, agents.heartbeat(vm1, Duration.ofSeconds(60)));
    send(vm2, agents.heartbeat(vm2, Duration.ofSeconds(60)));
    assertThat(vm("vm-1").heartbeatIntervalSeconds()).isEqualTo(60);
    assertThat(vm("vm-1").silent()).isFalse();

    driver.advanceWallClockTime(Duration.ofSeconds(170));
    send(vm2, agents.heartbeat(vm2, Duration.ofSeconds(60)));
    driver.advanceWallClockTime(Duration.ofSeconds(20));
    assertThat(vm("vm-1").silent()).as("190 s > 3 x 60 s").isTrue();
    assertThat(vm("vm-2").silent()).isFalse();

    send(vm1, agents.heartbeat(vm1, Duration.ofSeconds(60)));
    assertThat(vm("vm-1").silent()).isFalse();
  }

  @Test
  void aHeartbeatFromAVmNeverSeenBeforeCreatesItsView() {
    VmIdentity stranger = AgentEnvelopes.vm("vm-new", "new-1", "2", "batch");
    send(stranger, agents.heartbeat(stranger, Duration.ofSeconds(300)));
    VmView v = vm("vm-new");
    assertThat(v.name()).isEqualTo("new-1");
    assertThat(v.zone()).isEqualTo("2");
    assertThat(v.scaleSet()).isEqualTo("batch");
    assertThat(v.agentVersion()).isEqualTo("0.1.0-test");
    assertThat(v.lastHeartbeatAt()).isEqualTo(T0);
    assertThat(v.polls()).containsKeys("total", "documents");
    assertThat(v.openEvents()).isEmpty();
  }

  @Test
  void poisonRecordsAreCountedBySkippedKindAndTheViewGoesOn() {
    long before = skipped();
    envelopes.pipeInput("vm-1", "not json {".getBytes(StandardCharsets.UTF_8));
    envelopes.pipeInput("vm-1", "{\"hello\":\"world\"}".getBytes(StandardCharsets.UTF_8));
    envelopes.pipeInput("vm-1", (byte[]) null);
    byte[] broken =
        new String(agents.heartbeat(vm1, Duration.ofSeconds(60)), StandardCharsets.UTF_8)
            .replace("\"intervalSeconds\":60", "\"intervalSeconds\":\"sixty\"")
            .getBytes(StandardCharsets.UTF_8);
    envelopes.pipeInput("vm-1", broken);
    assertThat(skipped() - before).isEqualTo(4);
    assertThat(SkipAndCount.counts()).containsKeys("not-json", "not-sebridge-v1", "empty");
    assertThat(SkipAndCount.counts()).containsKey("invalid dev.sebridge.agent.heartbeat.v1");
    // A made-up type name of ours is no kind of its own: the counts do not grow with them.
    int kinds = SkipAndCount.counts().size();
    for (int i = 0; i < 5; i++) {
      envelopes.pipeInput(
          "vm-1",
          new String(broken, StandardCharsets.UTF_8)
              .replace(
                  "dev.sebridge.agent.heartbeat.v1",
                  i % 2 == 0
                      ? "dev.sebridge.made-up-" + i + ".v1"
                      : "dev.sebridge.agent.heartbeat.x" + i)
              .getBytes(StandardCharsets.UTF_8));
    }
    assertThat(skipped() - before).isEqualTo(9);
    assertThat(SkipAndCount.counts()).hasSize(kinds);
    assertThat(vm("vm-1")).isNull();

    send(vm1, agents.heartbeat(vm1, Duration.ofSeconds(60)));
    assertThat(vm("vm-1")).isNotNull();
  }

  /** A list's cursor is the last key it listed: a key too long for a cursor is never kept. */
  @Test
  void aVmIdLongerThanAnyCursorHoldsIsSkippedAndCounted() throws Exception {
    var node =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            JsonSerde.JSON.readTree(agents.heartbeat(vm1, Duration.ofSeconds(60)));
    String longId = "v".repeat(dev.sebridge.fleet.model.StoreKeys.MAX_KEY + 1);
    node.put("partitionkey", longId);
    long before = skipped();
    envelopes.pipeInput(longId, JsonSerde.JSON.writeValueAsBytes(node));
    assertThat(skipped() - before).isEqualTo(1);
    assertThat(vm(longId)).isNull();
  }

  /**
   * The page links to a VM or an event by its id as a path segment; "." and ".." there lead the
   * browser to another page however they are encoded, so no view is keyed by them.
   */
  @Test
  void aVmIdOrEventIdThatIsADotSegmentIsSkippedAndCounted() throws Exception {
    for (String id : List.of(".", "..")) {
      var node =
          (com.fasterxml.jackson.databind.node.ObjectNode)
              JsonSerde.JSON.readTree(agents.heartbeat(vm1, Duration.ofSeconds(60)));
      node.put("partitionkey", id);
      long before = skipped();
      envelopes.pipeInput(id, JsonSerde.JSON.writeValueAsBytes(node));
      assertThat(skipped() - before).as(id).isEqualTo(1);
      assertThat(vm(id)).isNull();
    }
  }

  /**
   * A key is stored as its UTF-8 bytes, where a lone surrogate becomes '?': "vm-\ud800" would share
   * the view of "vm-?" (and of "vm-\udc00"), one VM's view shown for another. Such an id is skipped
   * and counted; a pair is a character like any other.
   */
  @Test
  void aVmIdWithALoneSurrogateIsSkippedAndCounted() throws Exception {
    assertThat(dev.sebridge.fleet.model.StoreKeys.problem("vm-\uD83D\uDE00")).isNull();
    assertThat(dev.sebridge.fleet.model.StoreKeys.problem("vm-\uDE00\uD83D")).isNotNull();
    for (String escaped : List.of("vm-\\ud800", "\\udc00vm", "vm-\\ud800\\ud800")) {
      var node =
          (com.fasterxml.jackson.databind.node.ObjectNode)
              JsonSerde.JSON.readTree(agents.heartbeat(vm1, Duration.ofSeconds(60)));
      node.put("partitionkey", "PLACEHOLDER");
      byte[] bytes =
          JsonSerde.JSON
              .writeValueAsString(node)
              .replace("PLACEHOLDER", escaped)
              .getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String id = JsonSerde.JSON.readTree(bytes).get("partitionkey").asText();
      assertThat(dev.sebridge.fleet.model.StoreKeys.problem(id)).as(escaped).isNotNull();
      long before = skipped();
      envelopes.pipeInput(id, bytes);
      assertThat(skipped() - before).as(escaped).isEqualTo(1);
      assertThat(vm(id)).isNull();
      assertThat(vm(id.replaceAll("[\\uD800-\\uDFFF]", "?"))).isNull();
    }
    // A result's EventIds key the events looked up: one with a lone surrogate is skipped too.
    byte[] result =
        new String(
                agents.result(
                    vm1,
                    "fleet:r1:vm-1",
                    "alice",
                    ApprovalResult.Outcome.ACCEPTED,
                    ReasonCode.ACCEPTED,
                    List.of("PLACEHOLDER"),
                    ApprovalResult.Kind.OUTCOME),
                java.nio.charset.StandardCharsets.UTF_8)
            .replace("PLACEHOLDER", "E-\\ud800")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    long before = skipped();
    envelopes.pipeInput("vm-1", result);
    assertThat(skipped() - before).isEqualTo(1);
  }

  @Test
  void anEnvelopeOfAnUnknownLaterMinorVersionIsApplied() throws Exception {
    var json = JsonSerde.JSON;
    var node =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            json.readTree(agents.heartbeat(vm1, Duration.ofSeconds(60)));
    node.put("dataschema", "urn:sebridge:schema:heartbeat:1.7");
    var data = (com.fasterxml.jackson.databind.node.ObjectNode) node.get("data");
    data.put("schemaVersion", "1.7");
    data.putObject("futureField").put("anything", true);
    long before = skipped();
    envelopes.pipeInput("vm-1", json.writeValueAsBytes(node));
    assertThat(skipped()).isEqualTo(before);
    assertThat(vm("vm-1").heartbeatIntervalSeconds()).isEqualTo(60);
  }

  @Test
  void aRequestOlderThanTheCommandLifetimeIsNeverSigned() {
    // a fresh application id replays the audit topic: last month's approval is not sent again
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1");
    approvals.pipeInput(
        "r-old",
        new ApprovalRequest(
                "r-old",
                REBOOT,
                List.of("vm-1"),
                "last month",
                "alice",
                T0.minus(Duration.ofDays(30)),
                "api")
            .admit());
    assertThat(commands.isEmpty()).isTrue();
    assertThat(request("r-old").request().refusal()).contains("longer ago than a command lives");
  }

  @Test
  void aRequestWrittenToTheAuditTopicWithoutTheLedgerIsRefusedAndSendsNothing() {
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1");
    approvals.pipeInput(
        "r-direct",
        new ApprovalRequest("r-direct", REBOOT, List.of("vm-1"), "old client", "alice", T0, "api"));
    assertThat(commands.isEmpty()).isTrue();
    RequestView view = request("r-direct");
    assertThat(view.request().refusal()).contains("without passing the fleet-wide ledger");
    assertThat(view.vms().get("vm-1").outcome()).isEqualTo("refused");
  }

  @Test
  void anApprovalRequestSendsOneSignedCommandPerVmToItsAgentsPartitionOnce() throws Exception {
    transition(TransitionType.SCHEDULED, vm1, "Scheduled", "web-1", "web-2");
    transition(TransitionType.SCHEDULED, vm2, "Scheduled", "web-1", "web-2");
    ApprovalRequest r =
        new ApprovalRequest(
                "r1", REBOOT, List.of("vm-1", "vm-2"), "patch window", "alice", T0, "api")
            .admit();
    approvals.pipeInput("r1", r);
    approvals.pipeInput("r1", r); // handled again (a failover): nothing new is sent

    var sent = commands.readRecordsToList();
    assertThat(sent).extracting(rec -> rec.key()).containsExactly("vm-1", "vm-2");
    TrustedKeys trusted = new TrustedKeys(List.of(key.toPublicJWK()));
    for (var rec : sent) {
      Verdict v = new CommandVerifier(trusted, rec.key(), clock).verify(rec.value());
      assertThat(v).isInstanceOf(Verdict.Valid.class);
      var c = ((Verdict.Valid) v).command();
      assertThat(c.commandId()).isEqualTo(ApprovalRequest.commandId("r1", rec.key()));
      assertThat(c.audience()).isEqualTo(rec.key());
      assertThat(c.requestedBy()).isEqualTo("alice");
      assertThat(c.reason()).isEqualTo("patch window");
      assertThat(c.eventIds()).containsExactly(REBOOT);
      assertThat(Duration.between(c.issuedAt(), c.expiresAt()))
          .isLessThanOrEqualTo(Duration.ofMinutes(10));
    }
    RequestView view = request("r1");
    assertThat(view.vms()).containsOnlyKeys("vm-1", "vm-2");
    assertThat(view.complete()).isFalse();

    // results arrive: a replay refusal does not overwrite the outcome
    send(
        vm1,
        agents.result(
            vm1,
            "fleet:r1:vm-1",
            "alice",
            ApprovalResult.Outcome.ACCEPTED,
            ReasonCode.ACCEPTED,
            List.of(REBOOT),
            ApprovalResult.Kind.OUTCOME));
    send(
        vm1,
        agents.result(
            vm1,
            "fleet:r1:vm-1",
            "alice",
            ApprovalResult.Outcome.REJECTED,
            ReasonCode.REPLAYED,
            List.of(REBOOT),
            ApprovalResult.Kind.REPLAY));
    send(
        vm2,
        agents.result(
            vm2,
            "fleet:r1:vm-2",
            "alice",
            ApprovalResult.Outcome.REJECTED,
            ReasonCode.NOT_SCHEDULED,
            List.of(REBOOT),
            ApprovalResult.Kind.OUTCOME));
    view = request("r1");
    assertThat(view.vms().get("vm-1").outcome()).isEqualTo("accepted");
    assertThat(view.vms().get("vm-2").outcome()).isEqualTo("rejected");
    assertThat(view.vms().get("vm-2").reasonCode()).isEqualTo("not-scheduled");
    assertThat(view.complete()).isTrue();
  }

  @Test
  void commandsGoToThePartitionTheAgentReads() {
    var p = new AgentPartition();
    for (String vmId : List.of("vm-1", "5c2e3c9a-0000-4000-8000-000000000000", "x")) {
      assertThat(p.partitions("commands", vmId, null, 32))
          .contains(java.util.Set.of(CommandPartitioning.partitionFor(vmId, 32)));
    }
  }

  @Test
  void aRequestWhoseCommandsCannotBeSignedSendsNothingAndSaysSo() {
    RequestView view =
        approveSigningWith(
            input -> {
              throw new com.nimbusds.jose.JOSEException("Key Vault: 503");
            },
            CommandIssuer.DEADLINE);
    assertThat(view.vms().values())
        .hasSize(2)
        .allMatch(v -> v.outcome().equals("failed") && v.reasonCode().equals("not-sent"))
        .allMatch(v -> v.reason().contains("503"));
    assertThat(view.complete()).isTrue();
  }

  @Test
  @org.junit.jupiter.api.Timeout(30) // before the deadline it hung here for ever
  void aVaultThatHangsFailsTheRequestAtTheDeadlineInsteadOfHoldingTheStreamThread()
      throws Exception {
    java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch signing = new java.util.concurrent.CountDownLatch(2);
    try {
      RequestView view =
          approveSigningWith(
              input -> {
                signing.countDown();
                never.await(); // a vault call that never answers
                throw new com.nimbusds.jose.JOSEException("released");
              },
              Duration.ofMillis(300));
      assertThat(signing.await(0, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(view.vms().values())
          .hasSize(2)
          .allMatch(v -> v.outcome().equals("failed") && v.reasonCode().equals("not-sent"))
          .allMatch(v -> v.reason().contains("took longer than PT0.3S"));
    } finally {
      never.countDown();
    }
  }

  /** A signature as a vault gives it, or not. */
  interface Signature {
    com.nimbusds.jose.util.Base64URL sign(byte[] input) throws Exception;
  }

  /** A request for two VMs through a topology whose commands are signed so; its view. */
  private RequestView approveSigningWith(Signature signature, Duration deadline) {
    driver.close();
    com.nimbusds.jose.JWSSigner vault =
        new com.nimbusds.jose.JWSSigner() {
          @Override
          public com.nimbusds.jose.util.Base64URL sign(
              com.nimbusds.jose.JWSHeader header, byte[] input)
              throws com.nimbusds.jose.JOSEException {
            try {
              return signature.sign(input);
            } catch (com.nimbusds.jose.JOSEException e) {
              throw e;
            } catch (Exception e) {
              throw new com.nimbusds.jose.JOSEException(e);
            }
          }

          @Override
          public java.util.Set<com.nimbusds.jose.JWSAlgorithm> supportedJWSAlgorithms() {
            return java.util.Set.of(com.nimbusds.jose.JWSAlgorithm.ES256);
          }

          @Override
          public com.nimbusds.jose.jca.JCAContext getJCAContext() {
            return new com.nimbusds.jose.jca.JCAContext();
          }
        };
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "fleet-test-broken");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver =
        new TopologyTestDriver(
            FleetTopology.build(
                TOPICS,
                new CommandIssuer(
                    new CommandSigner(vault, com.nimbusds.jose.JWSAlgorithm.ES256, "kv", "fleet"),
                    Duration.ofMinutes(5),
                    deadline),
                3,
                Duration.ofHours(24),
                TopologyObserver.NONE),
            p,
            T0);
    approvals =
        driver.createInputTopic(
            TOPICS.approvals(),
            new StringSerializer(),
            new JsonSerde<>(ApprovalRequest.class).serializer());
    commands =
        driver.createOutputTopic(
            TOPICS.commands(), new StringDeserializer(), new ByteArrayDeserializer());
    approvals.pipeInput(
        "r9",
        new ApprovalRequest("r9", REBOOT, List.of("vm-1", "vm-2"), "why", "alice", T0, "api")
            .admit());
    assertThat(commands.isEmpty()).isTrue();
    return request("r9");
  }

  private static long skipped() {
    return SkipAndCount.counts().values().stream().mapToLong(AtomicLong::get).sum();
  }
}
