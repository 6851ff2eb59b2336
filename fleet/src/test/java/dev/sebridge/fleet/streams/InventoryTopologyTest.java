package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.InventoryState;
import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.track.TransitionType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Membership from Azure's inventory ({@code fleet.inventory.*}), against what IMDS would release:
 * the truth here is the commands the topology sends and, by IMDS semantics, every VM the approved
 * events list, by the group Azure has it in, not what the fleet's views say. Each attack is run
 * twice: with the inventory (the promise holds) and with membership from the agents (it does not:
 * the test can fail).
 */
class InventoryTopologyTest {
  static final Topics TOPICS = new Topics("fleet", "envelopes", "commands", "approvals");
  static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  final MutableClock clock = new MutableClock(T0);
  final AgentEnvelopes agents = new AgentEnvelopes(clock);

  /** Which VM each approved event's IMDS releases, by name: the events' Resources. */
  final Map<String, List<String>> resources = new HashMap<>();

  /** Each real VM's group as Azure has it. */
  final Map<String, String> realGroup = new HashMap<>();

  TopologyTestDriver driver;
  TestInputTopic<String, byte[]> envelopes;
  TestInputTopic<String, InventoryVm> inventory;
  TestInputTopic<String, RolloutCommand> rollouts;
  TestOutputTopic<String, byte[]> commands;

  void start(Membership membership) throws Exception {
    start(membership, Policies.none());
  }

  void start(Membership membership, Policies policies) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "fleet-inventory-test");
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
                TopologyObserver.NONE,
                policies,
                Duration.ofSeconds(1),
                () -> 4,
                ReplayGate.NONE,
                dev.sebridge.fleet.streams.ViewsGate.NONE,
                membership),
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
    if (membership == Membership.INVENTORY) {
      inventory =
          driver.createInputTopic(
              TOPICS.of(FleetTopology.INVENTORY),
              new StringSerializer(),
              new JsonSerde<>(InventoryVm.class).serializer());
    }
  }

  @AfterEach
  void stop() {
    if (driver != null) {
      driver.close();
    }
  }

  /** Ten real VMs of scale set web, each with a one-VM Reboot, and 90 invented ones in web. */
  private List<String> tenRealAndNinetyInvented() {
    List<String> events = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      VmIdentity vm = real("vm-" + i, "web-" + i, "web");
      envelopes.pipeInput(vm.vmId(), agents.heartbeat(vm, Duration.ofSeconds(60)));
      scheduled(vm, "E-" + i, vm.name());
      events.add("E-" + i);
    }
    // Any process on any VM can get the agents' shared identity's token and publish heartbeats.
    for (int i = 0; i < 90; i++) {
      VmIdentity fake =
          AgentEnvelopes.vm(
              String.format("00000000-0000-0000-0000-%012d", i), "invented-" + i, "1", "web");
      envelopes.pipeInput(fake.vmId(), agents.heartbeat(fake, Duration.ofSeconds(60)));
    }
    return events;
  }

  @Test
  void anInventedVmIdsHeartbeatsDoNotChangeAGroupsLimit() throws Exception {
    start(Membership.INVENTORY);
    List<String> events = tenRealAndNinetyInvented();
    create("r1", "10%", List.of("scaleSet"), events);
    tick();

    assertThat(releasedByGroup())
        .as("10 percent of the 10 VMs Azure has in web")
        .containsEntry("web", 1);
    VmView fake = vmView("00000000-0000-0000-0000-000000000007");
    assertThat(fake.inventory()).isEqualTo(InventoryState.UNKNOWN);
    assertThat(vmView("vm-3").inventory()).isEqualTo(InventoryState.KNOWN);
  }

  @Test
  void withoutAnInventoryTheSameHeartbeatsTurnTenPercentIntoTheWholeGroup() throws Exception {
    start(Membership.AGENTS);
    List<String> events = tenRealAndNinetyInvented();
    create("r1", "10%", List.of("scaleSet"), events);
    tick();

    // The attack the inventory stops: 10% of 100 "VMs" is 10, every real VM of web at once.
    assertThat(releasedByGroup()).containsEntry("web", 10);
  }

  /**
   * web-0 has no agent; an invented vmId reports web-0's event as web-0 of scale set db, where
   * there is room. With the inventory its report is not taken: the event lists web-0 by name, and
   * is held while a rollout is active.
   */
  @Test
  void anInventedVmIdCannotClaimARealVmsEventForAnotherGroup() throws Exception {
    start(Membership.INVENTORY);
    assertThat(claimedEventReleases()).as("web-1 only").containsEntry("web", 1);
  }

  @Test
  void withoutAnInventoryAClaimedEventPutsTheRealGroupOverItsLimit() throws Exception {
    start(Membership.AGENTS);
    assertThat(claimedEventReleases()).containsEntry("web", 2);
  }

  private Map<String, Integer> claimedEventReleases() {
    real("vm-0", "web-0", "web"); // no agent
    VmIdentity web1 = real("vm-1", "web-1", "web");
    envelopes.pipeInput(web1.vmId(), agents.heartbeat(web1, Duration.ofSeconds(60)));
    scheduled(web1, "E-1", "web-1");
    for (int i = 0; i < 5; i++) {
      VmIdentity db = real("vm-db-" + i, "db-" + i, "db");
      envelopes.pipeInput(db.vmId(), agents.heartbeat(db, Duration.ofSeconds(60)));
    }
    VmIdentity claim = AgentEnvelopes.vm("rogue-1", "web-0", "1", "db");
    envelopes.pipeInput(claim.vmId(), agents.heartbeat(claim, Duration.ofSeconds(60)));
    scheduled(claim, "E-0", "web-0");
    create("r1", "1", List.of("scaleSet"), List.of("E-0", "E-1"));
    tick();
    tick();
    return releasedByGroup();
  }

  /** The same real vmId spelt in upper case, again and again: one VM, counted once at most. */
  @Test
  void anotherSpellingOfARealVmIdIsAnotherVmAndUnknown() throws Exception {
    start(Membership.INVENTORY);
    List<String> events = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      VmIdentity vm = real("abcdefab-cdef-abcd-efab-cdefabcdef0" + i, "web-" + i, "web");
      envelopes.pipeInput(vm.vmId(), agents.heartbeat(vm, Duration.ofSeconds(60)));
      scheduled(vm, "E-" + i, vm.name());
      events.add("E-" + i);
    }
    // 63 more spellings of web-0's vmId: its first six letters in upper case, in every mix.
    String real = "abcdefab-cdef-abcd-efab-cdefabcdef00";
    for (int mask = 1; mask < 64; mask++) {
      StringBuilder spelt = new StringBuilder(real);
      for (int bit = 0; bit < 6; bit++) {
        if ((mask >> bit & 1) == 1) {
          spelt.setCharAt(bit, Character.toUpperCase(spelt.charAt(bit)));
        }
      }
      VmIdentity copy = AgentEnvelopes.vm(spelt.toString(), "web-0", "1", "web");
      envelopes.pipeInput(copy.vmId(), agents.heartbeat(copy, Duration.ofSeconds(60)));
    }
    create("r1", "10%", List.of("scaleSet"), events);
    tick();

    assertThat(releasedByGroup()).containsEntry("web", 1);
    assertThat(vmView("ABCDEFab-cdef-abcd-efab-cdefabcdef00").inventory())
        .isEqualTo(InventoryState.UNKNOWN);
  }

  /**
   * E lists web-1 (its agent reports it) and web-2 and web-3 (no agent). An invented vmId reports E
   * with only web-1 in its Resources: the event still lists all three, and is held.
   */
  @Test
  void anUnknownVmsReportCannotTakeVmsOffAnEvent() throws Exception {
    start(Membership.INVENTORY);
    VmIdentity web1 = real("vm-1", "web-1", "web");
    real("vm-2", "web-2", "web");
    real("vm-3", "web-3", "web");
    envelopes.pipeInput(web1.vmId(), agents.heartbeat(web1, Duration.ofSeconds(60)));
    ObjectNode e =
        AgentEnvelopes.imdsEvent(
            "E-1", "Reboot", "Scheduled", List.of("web-1", "web-2", "web-3"), T0.plusSeconds(3600));
    resources.put("e-1", List.of("web-1", "web-2", "web-3"));
    envelopes.pipeInput(
        web1.vmId(), agents.transition(TransitionType.SCHEDULED, web1, e, false), clock.instant());
    VmIdentity rogue = AgentEnvelopes.vm("rogue-1", "web-1", "1", "web");
    ObjectNode narrowed =
        AgentEnvelopes.imdsEvent(
            "E-1", "Reboot", "Scheduled", List.of("web-1"), T0.plusSeconds(3600));
    envelopes.pipeInput(
        rogue.vmId(),
        agents.transition(TransitionType.SCHEDULED, rogue, narrowed, false),
        clock.instant());
    // Two may be down at once: E, as the narrowed report has it, would take web-1 (and the
    // unknown VM's claim) only; IMDS would take all three.
    create("r1", "2", List.of("scaleSet"), List.of("E-1"));
    tick();
    tick();

    assertThat(releasedByGroup()).isEmpty();
  }

  /**
   * A known VM (vm-1, web) reports an event that lists db-7, a VM without an agent, as if it were
   * db-7: the event's part carries the inventory's name, web-1, so db-7 stays unreported and held.
   */
  @Test
  void aKnownVmCannotClaimToBeAnotherVmOfAnEvent() throws Exception {
    start(Membership.INVENTORY);
    VmIdentity web1 = real("vm-1", "web-1", "web");
    real("vm-7", "db-7", "db");
    envelopes.pipeInput(web1.vmId(), agents.heartbeat(web1, Duration.ofSeconds(60)));
    VmIdentity claiming = AgentEnvelopes.vm("vm-1", "db-7", "1", "web");
    scheduled(claiming, "E-7", "db-7");
    create("r1", "1", List.of("scaleSet"), List.of("E-7"));
    tick();
    tick();

    assertThat(releasedByGroup()).isEmpty();
  }

  /**
   * Web's reboots go through a rollout rule; everything else is approved at once. An unknown VM
   * reporting web-1's event (claiming no scale set, or another) cannot move it to the broader rule.
   */
  @Test
  void anUnknownVmsPartCannotMoveAnEventToAnotherPolicyRule() throws Exception {
    List<dev.sebridge.config.ConfigProblem> problems = new ArrayList<>();
    Policies policies =
        Policies.parse(
            Map.of(
                "version", "1",
                "rules.10-web.match.scale-set", "web",
                "rules.10-web.action", "rollout",
                "rules.10-web.rollout.max-unavailable", "1",
                "rules.20-all.match.type", "Reboot",
                "rules.20-all.action", "approve"),
            problems);
    assertThat(problems).isEmpty();
    start(Membership.INVENTORY, policies);
    VmIdentity web1 = real("vm-1", "web-1", "web");
    envelopes.pipeInput(web1.vmId(), agents.heartbeat(web1, Duration.ofSeconds(60)));
    scheduled(web1, "E-1", "web-1");
    scheduled(AgentEnvelopes.vm("rogue-1", "web-1", "1", "batch"), "E-1", "web-1");
    tick();

    dev.sebridge.fleet.rollout.PolicyDecision d =
        driver
            .<String, dev.sebridge.fleet.rollout.PolicyDecision>getKeyValueStore(
                FleetTopology.POLICIES_VIEW)
            .get("e-1");
    assertThat(d.rule()).isEqualTo("10-web");
  }

  /**
   * An agent that could not read its name from IMDS took the host's (web000003 for the scale set's
   * instance web_3) and finds itself in none of its events (affectsThisVm false): the event lists
   * the name the inventory gives its vmId, so its report is its VM's part all the same, and the VM
   * has the event open. Taken at the agent's word, the event never reached the views and Azure
   * rebooted the VM uncounted.
   */
  @Test
  void aVmWhoseAgentHasTheHostsNameReportsItsEventByTheInventorysName() throws Exception {
    start(Membership.INVENTORY);
    real("vm-3", "web_3", "web");
    VmIdentity host = AgentEnvelopes.vm("vm-3", "web000003", "1", "web");
    envelopes.pipeInput(host.vmId(), agents.heartbeat(host, Duration.ofSeconds(60)));
    scheduled(host, "E-3", "WEB_3");
    EventView v = driver.<String, EventView>getKeyValueStore(FleetTopology.EVENTS_VIEW).get("e-3");
    assertThat(v).isNotNull();
    assertThat(v.vms()).containsKey("vm-3");
    assertThat(vmView("vm-3").openEvents()).containsExactly("e-3");
    // Another VM's event that does not list it stays another VM's.
    scheduled(host, "E-4", "web_4");
    assertThat(driver.<String, EventView>getKeyValueStore(FleetTopology.EVENTS_VIEW).get("e-4"))
        .isNull();
  }

  /**
   * Its event's end still closes its part when the inventory refresh missed the VM just then: the
   * report is not the VM's own by name at that moment. Dropped, the VM's part stayed open, the
   * event with it, and the ledger counted the VM down until its 30 days were over.
   */
  @Test
  void aVmWhoseAgentHasTheHostsNameEndsItsEventThoughTheInventoryMissedItThen() throws Exception {
    start(Membership.INVENTORY);
    real("vm-3", "web_3", "web");
    VmIdentity host = AgentEnvelopes.vm("vm-3", "web000003", "1", "web");
    envelopes.pipeInput(host.vmId(), agents.heartbeat(host, Duration.ofSeconds(60)));
    scheduled(host, "E-3", "web_3");
    // Another VM's event in its document: not its own, and its end makes it no part.
    scheduled(host, "E-4", "web_4");
    assertThat(vmView("vm-3").openEvents()).containsExactly("e-3");
    inventory.pipeInput(InventoryVm.key("vm-3"), null);
    for (String id : List.of("E-3", "E-4")) {
      ObjectNode e =
          AgentEnvelopes.imdsEvent(
              id,
              "Reboot",
              "Started",
              List.of(id.equals("E-3") ? "web_3" : "web_4"),
              T0.plusSeconds(3600));
      envelopes.pipeInput(
          host.vmId(),
          agents.transition(TransitionType.COMPLETED, host, e, false),
          clock.instant());
    }
    EventView v = driver.<String, EventView>getKeyValueStore(FleetTopology.EVENTS_VIEW).get("e-3");
    assertThat(v.vms().get("vm-3").status()).isEqualTo("completed");
    // The part keeps the name it was counted by, not the agent's.
    assertThat(v.vms().get("vm-3").name()).isEqualTo("web_3");
    assertThat(v.closedAt()).isNotNull();
    assertThat(vmView("vm-3").openEvents()).isEmpty();
    assertThat(driver.<String, EventView>getKeyValueStore(FleetTopology.EVENTS_VIEW).get("e-4"))
        .isNull();
    // IMDS serves it again (a document without it for a moment, an agent restarted): its part is
    // open again, though the inventory still misses the VM.
    scheduled(host, "E-3", "web_3");
    v = driver.<String, EventView>getKeyValueStore(FleetTopology.EVENTS_VIEW).get("e-3");
    assertThat(v.vms().get("vm-3").status()).isEqualTo("scheduled");
    assertThat(v.vms().get("vm-3").name()).isEqualTo("web_3");
    assertThat(v.closedAt()).isNull();
  }

  /**
   * The same through a rollout: the VM released, its event over while the inventory misses it, then
   * listed and heard from again, is back, and its group's room goes to the next event. Its event's
   * end dropped, it held the room until the ledger's 30 days were over.
   */
  @Test
  void aVmWhoseAgentHasTheHostsNameIsBackAfterItsEventEndedWhileTheInventoryMissedIt()
      throws Exception {
    start(Membership.INVENTORY);
    real("vm-3", "web_3", "web");
    VmIdentity host = AgentEnvelopes.vm("vm-3", "web000003", "1", "web");
    VmIdentity web4 = real("vm-4", "web_4", "web");
    envelopes.pipeInput(host.vmId(), agents.heartbeat(host, Duration.ofSeconds(60)));
    envelopes.pipeInput(web4.vmId(), agents.heartbeat(web4, Duration.ofSeconds(60)));
    ObjectNode e3 =
        AgentEnvelopes.imdsEvent(
            "E-3", "Reboot", "Scheduled", List.of("web_3"), T0.plusSeconds(1800));
    resources.put("e-3", List.of("web_3"));
    envelopes.pipeInput(
        host.vmId(), agents.transition(TransitionType.SCHEDULED, host, e3, false), clock.instant());
    scheduled(web4, "E-4", "web_4"); // NotBefore later: released second
    create("r1", "1", List.of("scaleSet"), List.of("E-3", "E-4"));
    tick();
    tick();
    assertThat(releasedByGroup()).containsExactly(Map.entry("web", 1));
    ObjectNode started =
        AgentEnvelopes.imdsEvent("E-3", "Reboot", "Started", List.of("web_3"), null);
    envelopes.pipeInput(
        host.vmId(),
        agents.transition(TransitionType.STARTED, host, started, false),
        clock.instant());
    tick();
    inventory.pipeInput(InventoryVm.key("vm-3"), null);
    tick();
    envelopes.pipeInput(
        host.vmId(),
        agents.transition(TransitionType.COMPLETED, host, started, false),
        clock.instant());
    tick();
    envelopes.pipeInput(host.vmId(), agents.heartbeat(host, Duration.ofSeconds(60)));
    tick();
    tick();
    // Heard from, but unknown to the inventory: not taken for back.
    assertThat(releasedByGroup()).isEmpty();
    real("vm-3", "web_3", "web");
    tick();
    envelopes.pipeInput(host.vmId(), agents.heartbeat(host, Duration.ofSeconds(60)));
    tick();
    tick();
    assertThat(releasedByGroup()).containsExactly(Map.entry("web", 1));
  }

  /** A real VM: Azure's inventory lists it (when the topology reads one). */
  private VmIdentity real(String vmId, String name, String scaleSet) {
    VmIdentity vm = AgentEnvelopes.vm(vmId, name, "1", scaleSet);
    realGroup.put(name.toLowerCase(Locale.ROOT), scaleSet);
    if (inventory != null) {
      inventory.pipeInput(
          InventoryVm.key(vmId),
          new InventoryVm(
              vmId,
              vm.resourceId(),
              name,
              vm.subscriptionId(),
              vm.resourceGroupName(),
              vm.location(),
              "1",
              scaleSet,
              null,
              Map.of()));
    }
    return vm;
  }

  private void scheduled(VmIdentity reporter, String eventId, String listed) {
    ObjectNode e =
        AgentEnvelopes.imdsEvent(
            eventId, "Reboot", "Scheduled", List.of(listed), T0.plusSeconds(3600));
    resources.put(eventId.toLowerCase(Locale.ROOT), List.of(listed));
    envelopes.pipeInput(
        reporter.vmId(),
        agents.transition(TransitionType.SCHEDULED, reporter, e, false),
        clock.instant());
  }

  private void create(String id, String max, List<String> groupBy, List<String> events) {
    rollouts.pipeInput(
        id,
        new RolloutCommand(
            id,
            RolloutCommand.CREATE,
            new RolloutSpec(events, max, groupBy, Duration.ZERO, Duration.ofMinutes(5)),
            null,
            null,
            "patch",
            "alice",
            clock.instant(),
            "api"));
  }

  /**
   * The real VMs IMDS released, by their real group: every name each approved event lists (one
   * command posting StartRequests releases the event for all of them).
   */
  private Map<String, Integer> releasedByGroup() {
    Set<String> approved = new TreeSet<>();
    commands
        .readValuesToList()
        .forEach(
            c -> {
              String body = new String(c, java.nio.charset.StandardCharsets.UTF_8);
              resources.keySet().stream()
                  .filter(e -> body.toLowerCase(Locale.ROOT).contains("\"" + e + "\""))
                  .forEach(approved::add);
            });
    Set<String> released = new TreeSet<>();
    approved.forEach(e -> resources.get(e).forEach(n -> released.add(n.toLowerCase(Locale.ROOT))));
    Map<String, Integer> out = new HashMap<>();
    released.forEach(n -> out.merge(realGroup.get(n), 1, Integer::sum));
    return out;
  }

  private VmView vmView(String vmId) {
    return driver.<String, VmView>getKeyValueStore(FleetTopology.VMS_VIEW).get(vmId);
  }

  private void tick() {
    clock.advance(Duration.ofSeconds(1));
    driver.advanceWallClockTime(Duration.ofSeconds(1));
  }
}
