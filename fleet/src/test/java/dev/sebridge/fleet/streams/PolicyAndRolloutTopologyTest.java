package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.RolloutVm;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.track.TransitionType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Central policies and rollouts in the topology, driven record by record with the driver's wall
 * clock: what each policy action sends, and a rollout that waits for a VM to be back.
 */
class PolicyAndRolloutTopologyTest {
  static final Topics TOPICS = new Topics("fleet", "envelopes", "commands", "approvals");
  static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

  final MutableClock clock = new MutableClock(T0);
  final AgentEnvelopes agents = new AgentEnvelopes(clock);
  final VmIdentity web1 = AgentEnvelopes.vm("vm-1", "web-1", "1", "web");
  final VmIdentity web2 = AgentEnvelopes.vm("vm-2", "web-2", "1", "web");
  final VmIdentity db1 = AgentEnvelopes.vm("vm-3", "db-1", "2", null);

  final java.util.concurrent.atomic.AtomicInteger misrouted =
      new java.util.concurrent.atomic.AtomicInteger();
  TopologyTestDriver driver;
  TestInputTopic<String, byte[]> envelopes;
  TestInputTopic<String, RolloutCommand> rollouts;
  TestOutputTopic<String, byte[]> commands;
  TestOutputTopic<String, byte[]> audit;

  /** What the topology last said of the rollouts task's replay (the metric's source). */
  final java.util.concurrent.atomic.AtomicBoolean replaying =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** The rollouts task's ticks the topology timed (the metric's source). */
  final java.util.concurrent.atomic.AtomicInteger ticksTimed =
      new java.util.concurrent.atomic.AtomicInteger();

  /** What the test's {@link ViewsGate} answers: why the views are behind, or empty. */
  final java.util.concurrent.atomic.AtomicReference<java.util.Optional<String>> behind =
      new java.util.concurrent.atomic.AtomicReference<>(java.util.Optional.empty());

  /** What the topology last said of holding the rollouts for the views (the metric's source). */
  final java.util.concurrent.atomic.AtomicBoolean held =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** What the test's {@link ReplayGate} answers: false while a test replays the rollouts topic. */
  final java.util.concurrent.atomic.AtomicBoolean caughtUp =
      new java.util.concurrent.atomic.AtomicBoolean(true);

  @BeforeEach
  void start(org.junit.jupiter.api.TestInfo test) throws Exception {
    caughtUp.set(!test.getTags().contains("replay"));
    List<ConfigProblem> problems = new ArrayList<>();
    Policies policies =
        Policies.parse(
            Map.ofEntries(
                Map.entry("version", "3"),
                Map.entry("rules.10-user.match.source", "User"),
                Map.entry("rules.10-user.action", "approve"),
                Map.entry("rules.20-freeze.match.type", "Freeze"),
                Map.entry("rules.20-freeze.match.duration-under", "9s"),
                Map.entry("rules.20-freeze.action", "approve"),
                Map.entry("rules.20-freeze.dry-run", "true"),
                Map.entry("rules.40-redeploy.match.type", "Redeploy"),
                Map.entry("rules.40-redeploy.match.source", "Platform"),
                Map.entry("rules.40-redeploy.action", "rollout"),
                Map.entry("rules.40-redeploy.rollout.max-unavailable", "1"),
                Map.entry("rules.40-redeploy.rollout.group-by", "zone"),
                Map.entry("rules.90-never.match.type", "Terminate,Preempt"),
                Map.entry("rules.90-never.action", "never")),
            problems);
    assertThat(problems).isEmpty();
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "fleet-policy-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver =
        new TopologyTestDriver(
            FleetTopology.build(
                TOPICS,
                new CommandIssuer(
                    new CommandSigner(
                        new ECKeyGenerator(Curve.P_256).keyID("k").generate(), "sebridge-fleet"),
                    Duration.ofMinutes(5)),
                3,
                Retention.closedEvents(Duration.ofHours(24)),
                new TopologyObserver() {

                  @Override
                  public void misrouted() {
                    misrouted.incrementAndGet();
                  }

                  @Override
                  public void rolloutsReplaying(boolean now) {
                    replaying.set(now);
                  }

                  @Override
                  public void rolloutsHeld(boolean now) {
                    held.set(now);
                  }

                  @Override
                  public void rolloutsTicked(Duration took) {
                    assertThat(took.isNegative()).isFalse();
                    ticksTimed.incrementAndGet();
                  }
                },
                policies,
                Duration.ofSeconds(1),
                () -> 4,
                () -> caughtUp::get,
                behind::get,
                dev.sebridge.fleet.streams.Membership.AGENTS),
            p,
            T0);
    envelopes =
        driver.createInputTopic(
            TOPICS.envelopes(), new StringSerializer(), new ByteArraySerializer());
    rollouts =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.ROLLOUTS),
            new StringSerializer(),
            new JsonSerde<>(RolloutCommand.class).serializer());
    commands =
        driver.createOutputTopic(
            TOPICS.commands(), new StringDeserializer(), new ByteArrayDeserializer());
    audit =
        driver.createOutputTopic(
            TOPICS.approvals(), new StringDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void eachPolicyActionDoesWhatItSaysAndTheRuleIsInTheReason() {
    scheduled(web1, "E-USER", "Redeploy", "User", -1);
    scheduled(web2, "E-FREEZE", "Freeze", "Platform", 5);
    scheduled(db1, "E-TERM", "Terminate", "Platform", -1);
    tick();

    assertThat(decision("E-USER").rule()).isEqualTo("10-user");
    assertThat(decision("E-FREEZE").dryRun()).isTrue();
    assertThat(decision("E-FREEZE").detail()).startsWith("dry run: would approve");
    assertThat(decision("E-TERM").action()).isEqualTo("never");
    List<RequestView> sent = requests();
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).request().eventId()).isEqualTo("E-USER");
    assertThat(sent.get(0).request().reason()).startsWith("policy 10-user v3: approve at once");
    assertThat(sent.get(0).request().origin()).isEqualTo("policy:10-user@v3");
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");

    tick(); // decided once: nothing new
    assertThat(commands.isEmpty()).isTrue();
  }

  @Test
  void aRolloutApprovesTheNextEventOnlyOnceTheFirstVmIsBack() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(web2, "E-2", "Reboot", "Platform", -1);
    rollouts.pipeInput(
        "r1",
        new RolloutCommand(
            "r1",
            RolloutCommand.CREATE,
            new RolloutSpec(
                List.of("E-1", "E-2"),
                "1",
                List.of("zone"),
                Duration.ofSeconds(5),
                Duration.ofMinutes(5)),
            null,
            null,
            "patch",
            "alice",
            clock.instant(),
            "api"));
    tick();
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
    assertThat(rollout("r1").waves()).hasSize(1);

    transition(web1, "E-1", TransitionType.STARTED, "Started");
    tick();
    transition(web1, "E-1", TransitionType.COMPLETED, "Started");
    tick();
    assertThat(commands.isEmpty()).as("completed, but its agent not heard from since").isTrue();
    envelopes.pipeInput("vm-1", agents.heartbeat(web1, Duration.ofSeconds(60)), clock.instant());
    tick();
    assertThat(commands.isEmpty()).as("back, but not settled").isTrue();
    for (int i = 0; i < 5; i++) {
      tick();
    }
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-2");
    Rollout r = rollout("r1");
    assertThat(r.vms().get(RolloutVm.key("vm-1", "E-1")).phase()).isEqualTo(RolloutVm.BACK);
    assertThat(r.waves()).hasSize(2);
    assertThat(requests())
        .allSatisfy(v -> assertThat(v.request().reason()).startsWith("rollout r1 wave "));
  }

  /**
   * A rollout's command names the VMs the ledger counted for its event (its resources claim). When
   * Azure adds a VM to the event after the release, the agent refuses (resources-changed, nothing
   * posted): the rollout does not halt, and once the views list the VM added (the agents' reports
   * of it can come after their refusals) it releases the event again, under a new request whose
   * commands name that VM too; after {@code RefusedReleases.AGAIN_AT_MOST} such refusals it halts.
   */
  @Test
  void aRefusalForAVmAzureAddedToTheEventReleasesItAgainCountingThatVm() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    create("r1", "10", "E-1");
    tick();
    var first = commands.readKeyValuesToList();
    assertThat(first).extracting(kv -> kv.key).containsExactly("vm-1");
    assertThat(counted(first.get(0).value)).containsExactly("web-1");
    assertThat(requests().get(0).request().counted()).containsExactly("web-1");

    // Azure lists web-2 in the event too. web-1's agent refuses the command before any report of
    // the change reaches the views: the rollout waits for them, it does not send the same again.
    List<VmIdentity> listed = new ArrayList<>(List.of(web1));
    refuse(rollout("r1").vms().get(RolloutVm.key("vm-1", "E-1")).requestId(), listed);
    tick();
    tick();
    assertThat(rollout("r1").halt()).isNull();
    assertThat(commands.readKeyValuesToList()).as("the views do not list web-2 yet").isEmpty();
    assertThat(rollout("r1").vms().get(RolloutVm.key("vm-1", "E-1")).phase())
        .isEqualTo(RolloutVm.PENDING);

    for (int n = 1; n <= 4; n++) {
      VmIdentity added = AgentEnvelopes.vm("vm-" + (10 + n), "web-" + (10 + n), "1", "web");
      listed.add(added);
      grown(listed);
      tick();
      tick();
      var again = commands.readKeyValuesToList();
      if (n == 4) {
        break;
      }
      assertThat(rollout("r1").halt()).as("refusal %d", n).isNull();
      assertThat(again)
          .extracting(kv -> kv.key)
          .containsExactlyInAnyOrderElementsOf(listed.stream().map(VmIdentity::vmId).toList());
      List<String> names = listed.stream().map(VmIdentity::name).toList();
      again.forEach(kv -> assertThat(counted(kv.value)).containsExactlyInAnyOrderElementsOf(names));
      RolloutVm v = rollout("r1").vms().get(RolloutVm.key("vm-1", "E-1"));
      assertThat(v.phase()).isEqualTo(RolloutVm.APPROVED);
      assertThat(v.again()).isEqualTo(n);
      // ... and Azure adds one more before they post: each agent refuses again.
      refuse(v.requestId(), listed);
      tick();
      tick();
    }
    Rollout r = rollout("r1");
    assertThat(r.halt()).as("refused a fourth time").isNotNull();
    assertThat(r.halt().reason()).contains("resources-changed");
    assertThat(r.vms().get(RolloutVm.key("vm-1", "E-1")).again()).isEqualTo(3);
  }

  /** Azure's event E-1 lists these VMs now: each one's agent reports it so. */
  private void grown(List<VmIdentity> listed) {
    List<String> names = listed.stream().map(VmIdentity::name).toList();
    ObjectNode e =
        AgentEnvelopes.imdsEvent("E-1", "Reboot", "Scheduled", names, T0.plusSeconds(900));
    for (VmIdentity vm : listed) {
      envelopes.pipeInput(
          vm.vmId(),
          agents.transition(
              vm == listed.get(listed.size() - 1)
                  ? TransitionType.SCHEDULED
                  : TransitionType.UPDATED,
              vm,
              e,
              false),
          clock.instant());
    }
  }

  /** Each of these VMs' agents refuses the request's command: E-1 lists a VM it did not count. */
  private void refuse(String requestId, List<VmIdentity> vms) {
    for (VmIdentity vm : vms) {
      envelopes.pipeInput(
          vm.vmId(),
          agents.result(
              vm,
              ApprovalRequest.commandId(requestId, vm.vmId()),
              "alice",
              dev.sebridge.approval.ApprovalResult.Outcome.REJECTED,
              dev.sebridge.approval.ReasonCode.RESOURCES_CHANGED,
              List.of("E-1"),
              dev.sebridge.approval.ApprovalResult.Kind.OUTCOME),
          clock.instant());
    }
  }

  /** The names a fleet command's resources claim gives its one event. */
  private static List<String> counted(byte[] command) {
    try {
      var ce = JsonSerde.JSON.readTree(command);
      var claims = com.nimbusds.jwt.SignedJWT.parse(ce.get("data").asText()).getJWTClaimsSet();
      Map<String, Object> byEvent = claims.getJSONObjectClaim("resources");
      assertThat(byEvent).containsOnlyKeys(ce.get("subject").asText());
      List<String> names = new ArrayList<>();
      ((List<?>) byEvent.values().iterator().next()).forEach(n -> names.add((String) n));
      return names;
    } catch (java.io.IOException | java.text.ParseException e) {
      throw new AssertionError("not a signed command", e);
    }
  }

  /**
   * A rollout of 10,000 VMs (an event each) in three zones through the whole topology: it releases
   * its first wave, and no record it writes (its view, its entries, the state's changelogs, the
   * approvals) grows with it: the header stays under 8 KiB and each entry under 1 KiB, well under
   * Kafka's and Event Hubs' 1 MB.
   */
  @Test
  void aTenThousandVmRolloutGoesThroughAndNoRecordOfItGrowsWithIt() {
    int n = 10_000;
    String[] events = new String[n];
    // The views as the agents' envelopes make them (their path is tested above), straight onto
    // the view topics: the rollouts task reads only the views.
    TestInputTopic<String, dev.sebridge.fleet.model.VmView> vmViews =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.VIEWS_VMS),
            new StringSerializer(),
            new JsonSerde<>(dev.sebridge.fleet.model.VmView.class).serializer());
    TestInputTopic<String, dev.sebridge.fleet.model.EventView> eventViews =
        driver.createInputTopic(
            TOPICS.of(FleetTopology.VIEWS_EVENTS),
            new StringSerializer(),
            JsonSerde.eventViews().serializer());
    for (int i = 0; i < n; i++) {
      String vmId = String.format("vm-%05d", i);
      String name = String.format("web-%05d", i);
      String zone = Integer.toString(i % 3 + 1);
      events[i] = String.format("E-%05d", i);
      vmViews.pipeInput(
          vmId,
          new dev.sebridge.fleet.model.VmView(
              vmId,
              name,
              null,
              "sub-1",
              "rg",
              "westeurope",
              zone,
              "web",
              "0.1.0",
              T0,
              T0,
              T0,
              60,
              Map.of(),
              false,
              java.util.Set.of(events[i].toLowerCase(Locale.ROOT))),
          clock.instant());
      eventViews.pipeInput(
          events[i].toLowerCase(Locale.ROOT),
          new dev.sebridge.fleet.model.EventView(
              events[i],
              "Reboot",
              "Platform",
              T0.plusSeconds(900),
              -1,
              "planned",
              List.of(name),
              T0,
              T0,
              null,
              Map.of(
                  vmId,
                  new dev.sebridge.fleet.model.VmEventState(
                      vmId, name, zone, "web", "scheduled", null, T0, null))),
          clock.instant());
    }
    String[] sized = {
      TOPICS.of(FleetTopology.VIEWS_ROLLOUTS),
      TOPICS.of(FleetTopology.VIEWS_ROLLOUT_PARTS),
      "fleet-policy-test-" + FleetTopology.ROLLOUT_STATE + "-changelog",
      "fleet-policy-test-" + FleetTopology.ROLLOUT_PARTS_STATE + "-changelog",
      TOPICS.approvals()
    };
    Map<String, TestOutputTopic<String, byte[]>> out = new java.util.LinkedHashMap<>();
    for (String t : sized) {
      out.put(
          t, driver.createOutputTopic(t, new StringDeserializer(), new ByteArrayDeserializer()));
    }
    create("big", "10%", events);
    tick();
    Rollout r = rollout("big");
    assertThat(r.vms()).hasSize(n);
    assertThat(r.spec().eventIds()).hasSize(n);
    assertThat(r.waves())
        .singleElement()
        .satisfies(w -> assertThat(w.vmIds()).hasSizeBetween(990, 1_002));
    for (Map.Entry<String, TestOutputTopic<String, byte[]>> t : out.entrySet()) {
      int most = 0;
      int count = 0;
      for (byte[] v : t.getValue().readValuesToList()) {
        most = Math.max(most, v == null ? 0 : v.length);
        count++;
      }
      System.out.printf(
          "10,000-VM rollout: %s: %,d records, the largest %,d bytes%n", t.getKey(), count, most);
      assertThat(count).as(t.getKey()).isPositive();
      assertThat(most).as(t.getKey()).isLessThan(t.getKey().contains("parts") ? 1024 : 8 * 1024);
    }
    // The next step writes only what changed: the first wave's VMs reported started.
    for (RolloutVm v : r.vms().values()) {
      if (v.wave() != null) {
        transition(
            AgentEnvelopes.vm(v.vmId(), v.name(), v.group().substring(5), "web"),
            v.eventId(),
            TransitionType.STARTED,
            "Started");
      }
    }
    out.values().forEach(TestOutputTopic::readValuesToList);
    tick();
    assertThat(out.get(TOPICS.of(FleetTopology.VIEWS_ROLLOUT_PARTS)).readValuesToList())
        .as("entries written by the second step")
        .hasSizeBetween(1, 1_002);
  }

  private void create(String id, String max, String... events) {
    rollouts.pipeInput(
        id,
        new RolloutCommand(
            id,
            RolloutCommand.CREATE,
            new RolloutSpec(
                List.of(events), max, List.of("zone"), Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "patch",
            "alice",
            clock.instant(),
            "api"));
  }

  private void approve(String requestId, String eventId, String vmId, Boolean override) {
    ApprovalRequest r =
        new ApprovalRequest(
            requestId,
            eventId,
            List.of(vmId),
            "now",
            "bob",
            clock.instant(),
            "api",
            override,
            null,
            null);
    rollouts.pipeInput(requestId, RolloutCommand.approve(r));
  }

  @Test
  void anOperatorsApprovalOfAnEventARolloutHoldsIsRefusedAndAuditedUnlessOverridden() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(web2, "E-2", "Reboot", "Platform", -1);
    create("r1", "1", "E-1", "E-2");
    tick();
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");

    approve("req-held", "E-2", "vm-2", null);
    assertThat(commands.isEmpty()).as("r1 holds E-2 until vm-1 is back").isTrue();
    RequestView refused =
        requests().stream()
            .filter(v -> v.request().requestId().equals("req-held"))
            .findFirst()
            .orElseThrow();
    assertThat(refused.request().refusal()).contains("held by rollout r1");
    assertThat(refused.vms().get("vm-2").outcome()).isEqualTo("refused");
    assertThat(refused.commandsSentAt()).isNull();

    approve("req-override", "E-2", "vm-2", true);
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-2");
  }

  /**
   * An operator's approval of an event this instance's views do not show yet (the API's instance
   * showed it) counts vm-2, and its command claims vm-2's name as its view gives it: vm-2's agent
   * refuses the event if it lists another VM, one this ledger did not count.
   */
  @Test
  void anOperatorsApprovalOfAnEventTheViewsDoNotShowClaimsTheVmsName() {
    envelopes.pipeInput(
        web2.vmId(), agents.heartbeat(web2, Duration.ofSeconds(60)), clock.instant());
    approve("req-unseen", "E-9", "vm-2", null);
    var sent = commands.readKeyValuesToList();
    assertThat(sent).extracting(kv -> kv.key).containsExactly("vm-2");
    assertThat(counted(sent.get(0).value)).containsExactly("web-2");
  }

  @Test
  void twoRolloutsOverTheSameZoneReleaseOneVmBetweenThem() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(web2, "E-2", "Reboot", "Platform", -1);
    create("ra", "1", "E-1");
    create("rb", "1", "E-2");
    tick();
    assertThat(commands.readKeyValuesToList()).hasSize(1);
  }

  /**
   * A rollout's limit binds releases in groups it has no VM in, and is recorded when a check meets
   * it: a release by another rollout in its step, an operator's approval on its own. Saved with the
   * step or the approval, a failover to views from before a group shrank does not raise it
   * (StaleViewsTest). Until 2026-11-29 only the groups of a rollout's own VMs were recorded.
   */
  @Test
  void theLimitsAReleaseMetInGroupsWithoutTheRolloutsVmsAreRecorded() {
    VmIdentity db3 = AgentEnvelopes.vm("vm-3", "db-3", "2", "db");
    VmIdentity db4 = AgentEnvelopes.vm("vm-4", "db-4", "3", "db");
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(db3, "E-3", "Reboot", "Platform", -1);
    scheduled(db4, "E-4", "Reboot", "Platform", -1);
    create("r1", "1", "E-1");
    create("r2", "1", "E-3");
    tick();
    assertThat(commands.readKeyValuesToList())
        .extracting(kv -> kv.key)
        .containsExactlyInAnyOrder("vm-1", "vm-3");
    assertThat(rollout("r1").groupLimits())
        .as("r2's release was checked against r1's limit in zone 2")
        .containsEntry("zone=1", 1)
        .containsEntry("zone=2", 1)
        .doesNotContainKey("zone=3");
    assertThat(rollout("r2").groupLimits()).containsEntry("zone=1", 1).containsEntry("zone=2", 1);

    approve("req-4", "E-4", "vm-4", null);
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-4");
    assertThat(rollout("r1").groupLimits()).as("the approval's check").containsEntry("zone=3", 1);
    assertThat(rollout("r2").groupLimits()).containsEntry("zone=3", 1);
  }

  /**
   * While the global views are too far behind their topics, rollouts release nothing and an
   * operator's approval is refused while a rollout is active (one with override goes); once they
   * caught up, the rollout goes on. Views behind cannot count a VM moved or a group that shrank
   * since (docs/fleet.md, "Views behind").
   */
  @Test
  void whileTheViewsAreTooFarBehindNothingIsReleasedUnlessOverridden() {
    VmIdentity db3 = AgentEnvelopes.vm("vm-3", "db-3", "2", "db");
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(web2, "E-2", "Reboot", "Platform", -1);
    scheduled(db3, "E-3", "Reboot", "Platform", -1);
    create("r1", "1", "E-1");
    behind.set(java.util.Optional.of("12000 records behind their topics"));
    tick();
    tick();
    assertThat(commands.isEmpty()).as("the rollout waits for the views").isTrue();
    assertThat(held).isTrue();

    approve("req-3", "E-3", "vm-3", null);
    assertThat(commands.isEmpty()).isTrue();
    assertThat(requests())
        .filteredOn(v -> v.request().requestId().equals("req-3"))
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.request().refusal())
                    .contains("views here are behind (12000 records behind their topics)"));
    approve("req-3o", "E-3", "vm-3", true);
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-3");

    behind.set(java.util.Optional.empty());
    tick();
    assertThat(held).isFalse();
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
  }

  /**
   * One pass: a Redeploy starts the rule's rollout (at most 1 of a zone), and a User event listing
   * two VMs of the same zone, decided in the same pass, waits: the rollout is active once the pass
   * commits, and the approval would put two of the zone down. The User event's id sorts first: a
   * pass takes the events a rollout rule takes before the others. Until 2026-11-29 a rollout the
   * pass started bound only the next tick's releases, and both went.
   */
  @Test
  void aRolloutAPolicyStartsBindsTheApprovalsOfTheSamePass() {
    VmIdentity web3 = AgentEnvelopes.vm("vm-3", "web-3", "1", "web");
    scheduled(web1, "E-Y", "Redeploy", "Platform", -1);
    for (VmIdentity vm : List.of(web2, web3)) {
      ObjectNode e =
          AgentEnvelopes.imdsEvent(
              "E-X", "Reboot", "Scheduled", List.of("web-2", "web-3"), T0.plusSeconds(900));
      e.put("EventSource", "User");
      envelopes.pipeInput(
          vm.vmId(), agents.transition(TransitionType.SCHEDULED, vm, e, false), clock.instant());
    }
    tick();
    assertThat(decision("E-Y").detail()).contains("rolled out by");
    assertThat(decision("E-X"))
        .as("not now: the zone would be over the new rollout's limit")
        .isNull();
    assertThat(commands.readKeyValuesToList())
        .extracting(kv -> kv.key)
        .as("the rollout's first wave: vm-1 alone")
        .containsExactly("vm-1");
  }

  /**
   * A rollout the planner cannot step (a record it cannot read: an entry without a phase) is left
   * as it is, releasing nothing, but its recorded limits are lowered as a step lowers them: it
   * binds every release all the same. Until 2026-11-29 its limits stayed as recorded, and a
   * failover to views from before its group shrank took the larger one.
   */
  @Test
  void aRolloutThePlannerCannotStepStillHasItsLimitsLowered() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(web2, "E-2", "Reboot", "Platform", -1);
    RolloutSpec spec =
        new RolloutSpec(
            List.of("E-1"), "50%", List.of("zone"), Duration.ZERO, Duration.ofMinutes(5));
    RolloutVm bad =
        new RolloutVm(
            "vm-1", "web-1", "E-1", "zone=1", null, false, null, null, null, null, null, null, null,
            null, false, null);
    Rollout r =
        new Rollout(
            "r-bad",
            spec,
            "patch",
            "alice",
            "api",
            T0,
            Rollout.RUNNING,
            null,
            Map.of("zone=1", 5),
            Map.of(bad.key(), bad),
            List.of(),
            List.of());
    KeyValueStore<String, Rollout> headers = driver.getKeyValueStore(FleetTopology.ROLLOUT_STATE);
    KeyValueStore<String, dev.sebridge.fleet.rollout.RolloutPart> parts =
        driver.getKeyValueStore(FleetTopology.ROLLOUT_PARTS_STATE);
    headers.put(r.id(), dev.sebridge.fleet.rollout.RolloutParts.header(r));
    dev.sebridge.fleet.rollout.RolloutParts.parts(r).forEach(parts::put);
    tick();
    assertThat(commands.isEmpty()).isTrue();
    assertThat(rollout("r-bad")).as("saved, its limits lowered").isNotNull();
    assertThat(rollout("r-bad").groupLimits())
        .as("two live VMs in zone 1: 50% is one")
        .containsEntry("zone=1", 1);
  }

  @Test
  void anOperatorsApprovalThatWouldPutAZoneOverARolloutsLimitIsRefused() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    scheduled(web2, "E-2", "Reboot", "Platform", -1);
    create("r1", "1", "E-1");
    tick();
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
    approve("req-2", "E-2", "vm-2", null);
    assertThat(commands.isEmpty()).isTrue();
    assertThat(requests())
        .filteredOn(v -> v.request().requestId().equals("req-2"))
        .singleElement()
        .satisfies(v -> assertThat(v.request().refusal()).contains("rollout r1 allows (1)"));
  }

  @Test
  void aPolicyLeavesAnEventARolloutHoldsToTheRollout() {
    scheduled(web1, "E-U", "Redeploy", "User", -1);
    create("r1", "1", "E-U");
    tick();
    assertThat(decision("E-U").detail()).startsWith("held by rollout r1");
    assertThat(requests())
        .singleElement()
        .satisfies(v -> assertThat(v.request().origin()).isEqualTo("rollout:r1"));
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
  }

  /**
   * A fresh application id reads the rollouts topic from its start: a rollout's create and the
   * abort that ended it, and an operator's abort of a policy's rollout (which lives only in the
   * state, not on the topic). Until the task has caught up with where the topic stood, nothing is
   * stepped, so the abort wins; the policy's abort is kept and its rule stays suspended. An
   * approval decided before is not decided, audited or sent again.
   */
  @Test
  @org.junit.jupiter.api.Tag("replay")
  void aReplayedRolloutTopicReleasesNothingALaterRecordAborted() {
    scheduled(web1, "E-1", "Reboot", "Platform", -1);
    create("r1", "1", "E-1");
    tick();
    tick();
    assertThat(commands.isEmpty()).as("nothing stepped while replaying").isTrue();
    assertThat(replaying).as("sebridge_fleet_rollouts_replaying").isTrue();
    assertThat(ticksTimed).as("sebridge_fleet_rollouts_tick_seconds: no tick").hasValue(0);
    rollouts.pipeInput("r1", abort("r1"));
    String policyRollout = "policy-40-redeploy-v3";
    rollouts.pipeInput(policyRollout, abort(policyRollout));
    caughtUp.set(true);
    tick();
    tick();
    assertThat(replaying).as("sebridge_fleet_rollouts_replaying").isFalse();
    assertThat(ticksTimed).as("sebridge_fleet_rollouts_tick_seconds: each tick").hasValue(2);
    assertThat(commands.isEmpty()).as("r1 was aborted by a later record").isTrue();
    assertThat(rollout("r1").state()).isEqualTo(Rollout.ABORTED);
    assertThat(rollout(policyRollout).state()).isEqualTo(Rollout.ABORTED);

    scheduled(web2, "E-R9", "Redeploy", "Platform", -1);
    tick();
    tick();
    assertThat(decision("E-R9").detail()).startsWith("suspended: rollout " + policyRollout);
    assertThat(commands.isEmpty()).isTrue();

    approve("req-1", "E-1", "vm-1", true);
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
    int audited = audit.readKeyValuesToList().size();
    assertThat(audited).isPositive();
    approve("req-1", "E-1", "vm-1", true); // the same record again (a replay)
    assertThat(audit.isEmpty()).as("decided once").isTrue();
    assertThat(commands.isEmpty()).isTrue();
  }

  private RolloutCommand abort(String id) {
    return new RolloutCommand(
        id, RolloutCommand.ABORT, null, null, null, "stop", "alice", clock.instant(), "api");
  }

  /**
   * The policies add an event to their rollout in the same tick as the rollout steps (its VM moves
   * on): the step works on the rollout with the event, it does not save an older copy over it.
   */
  @Test
  void aPolicysRolloutKeepsTheEventItsRuleAddsInATickItAlsoSteps() {
    scheduled(web1, "E-R1", "Redeploy", "Platform", -1);
    tick();
    tick();
    String id = "policy-40-redeploy-v3";
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
    scheduled(web2, "E-R2", "Redeploy", "Platform", -1);
    transition(web1, "E-R1", TransitionType.STARTED, "Started");
    tick();
    assertThat(rollout(id).spec().eventIds()).containsExactlyInAnyOrder("E-R1", "E-R2");
    assertThat(rollout(id).vms().get(RolloutVm.key("vm-1", "E-R1")).phase())
        .isEqualTo(RolloutVm.STARTED);
  }

  /**
   * An operator aborts a policy's rollout while its VM is down: the next matching event does not
   * start it again under the same id (with nothing counted); the rule is suspended, and says so,
   * until the policies change.
   */
  @Test
  void abortingAPolicysRolloutSuspendsItsRuleAndTheIdIsNeverReused() {
    scheduled(web1, "E-R1", "Redeploy", "Platform", -1);
    tick(); // the rule adds the event to its rollout
    tick(); // which releases it
    String id = "policy-40-redeploy-v3";
    assertThat(rollout(id).state()).isEqualTo(Rollout.RUNNING);
    assertThat(commands.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("vm-1");
    rollouts.pipeInput(
        id,
        new RolloutCommand(
            id,
            RolloutCommand.ABORT,
            null,
            null,
            null,
            "wrong window",
            "alice",
            clock.instant(),
            "api"));
    tick();
    assertThat(rollout(id).state()).isEqualTo(Rollout.ABORTED);

    scheduled(web2, "E-R2", "Redeploy", "Platform", -1);
    tick();
    tick();
    assertThat(rollout(id).state()).as("not created again").isEqualTo(Rollout.ABORTED);
    assertThat(rollout(id).vms()).doesNotContainKey("vm-2");
    assertThat(decision("E-R2").detail()).startsWith("suspended: rollout " + id);
    assertThat(commands.isEmpty()).isTrue();
  }

  /** The driver puts every record on partition 0 of a 4-partition commands topic. */
  @Test
  void aCommandOnAPartitionItsAgentDoesNotReadIsCounted() {
    TestInputTopic<String, byte[]> raw =
        driver.createInputTopic(
            TOPICS.commands(), new StringSerializer(), new ByteArraySerializer());
    // murmur2 of this lower-case vmId, of 4: partition 0 (docs/approvals.md's vectors: 2 for
    // 8d3f...)
    raw.pipeInput("02aab8a4-74ef-476e-8182-f6d2ba4166a6", new byte[] {1});
    assertThat(misrouted.get()).isZero();
    raw.pipeInput("8d3f0a12-6b7e-4c1d-9e2f-a1b2c3d4e5f6", new byte[] {1});
    raw.pipeInput("8D3F0A12-6B7E-4C1D-9E2F-A1B2C3D4E5F6", new byte[] {1});
    raw.pipeInput(null, new byte[] {1});
    assertThat(misrouted.get()).isEqualTo(3);
  }

  private void tick() {
    clock.advance(Duration.ofSeconds(1));
    driver.advanceWallClockTime(Duration.ofSeconds(1));
  }

  private void scheduled(VmIdentity vm, String id, String type, String source, int duration) {
    ObjectNode e =
        AgentEnvelopes.imdsEvent(id, type, "Scheduled", List.of(vm.name()), T0.plusSeconds(900));
    e.put("EventSource", source);
    e.put("DurationInSeconds", duration);
    envelopes.pipeInput(
        vm.vmId(), agents.transition(TransitionType.SCHEDULED, vm, e, false), clock.instant());
  }

  private void transition(VmIdentity vm, String id, TransitionType t, String status) {
    ObjectNode e =
        AgentEnvelopes.imdsEvent(
            id,
            "Reboot",
            status,
            List.of(vm.name()),
            status.equals("Scheduled") ? T0.plusSeconds(900) : null);
    envelopes.pipeInput(vm.vmId(), agents.transition(t, vm, e, false), clock.instant());
  }

  private PolicyDecision decision(String eventId) {
    KeyValueStore<String, PolicyDecision> s = driver.getKeyValueStore(FleetTopology.POLICIES_VIEW);
    return s.get(eventId.toLowerCase(Locale.ROOT));
  }

  /** The rollout as the views show it: its header and its entries put together. */
  private Rollout rollout(String id) {
    KeyValueStore<String, Rollout> s = driver.getKeyValueStore(FleetTopology.ROLLOUTS_VIEW);
    Rollout header = s.get(id);
    if (header == null) {
      return null;
    }
    KeyValueStore<String, dev.sebridge.fleet.rollout.RolloutPart> parts =
        driver.getKeyValueStore(FleetTopology.ROLLOUT_PARTS_VIEW);
    List<dev.sebridge.fleet.rollout.RolloutPart> entries = new ArrayList<>();
    try (KeyValueIterator<String, dev.sebridge.fleet.rollout.RolloutPart> it =
        parts.range(
            dev.sebridge.fleet.rollout.RolloutPart.from(id),
            dev.sebridge.fleet.rollout.RolloutPart.to(id))) {
      it.forEachRemaining(kv -> entries.add(kv.value));
    }
    return dev.sebridge.fleet.rollout.RolloutParts.assemble(header, entries);
  }

  private List<RequestView> requests() {
    KeyValueStore<String, RequestView> s = driver.getKeyValueStore(FleetTopology.REQUESTS_VIEW);
    List<RequestView> out = new ArrayList<>();
    try (KeyValueIterator<String, RequestView> it = s.all()) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }
}
