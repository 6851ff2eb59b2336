package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.rollout.LedgerEntry;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.testing.AgentEnvelopes;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.track.TransitionType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retention (issue 27 item 7), on the whole topology with the driver's wall clock: months of a
 * churning fleet (VMs scaled out and in every day, each with maintenance, policies approving and
 * rolling out, operators' rollouts, VMs deleted mid-event) leave every store the size of what is
 * recent, and an event whose VM is gone closes as inferred (vanished).
 */
class RetentionTopologyTest {
  static final Topics TOPICS = new Topics("fleet", "envelopes", "commands", "approvals");
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final ObjectMapper JSON = new ObjectMapper().findAndRegisterModules();

  /** Every store the topology keeps, local and global. */
  static final List<String> STORES =
      List.of(
          FleetTopology.VM_STATE,
          FleetTopology.EVENT_STATE,
          FleetTopology.REQUEST_STATE,
          FleetTopology.ROLLOUT_STATE,
          FleetTopology.ROLLOUT_PARTS_STATE,
          FleetTopology.POLICY_STATE,
          FleetTopology.LEDGER_STATE,
          FleetTopology.VMS_VIEW,
          FleetTopology.EVENTS_VIEW,
          FleetTopology.REQUESTS_VIEW,
          FleetTopology.ROLLOUTS_VIEW,
          FleetTopology.ROLLOUT_PARTS_VIEW,
          FleetTopology.POLICIES_VIEW);

  final MutableClock clock = new MutableClock(T0);
  final AgentEnvelopes agents = new AgentEnvelopes(clock);
  TopologyTestDriver driver;
  TestInputTopic<String, byte[]> envelopes;
  TestInputTopic<String, RolloutCommand> rollouts;

  @BeforeEach
  void start() throws Exception {
    List<ConfigProblem> problems = new ArrayList<>();
    Policies policies =
        Policies.parse(
            Map.ofEntries(
                Map.entry("version", "1"),
                Map.entry("rules.10-user.match.source", "User"),
                Map.entry("rules.10-user.action", "approve"),
                Map.entry("rules.40-redeploy.match.type", "Redeploy"),
                Map.entry("rules.40-redeploy.match.source", "Platform"),
                Map.entry("rules.40-redeploy.action", "rollout"),
                Map.entry("rules.40-redeploy.rollout.max-unavailable", "1"),
                Map.entry("rules.40-redeploy.rollout.group-by", "zone")),
            problems);
    assertThat(problems).isEmpty();
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "fleet-retention-test");
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
                new Retention(Duration.ofHours(24), Retention.VMS, Retention.HISTORY),
                TopologyObserver.NONE,
                policies,
                Duration.ofSeconds(1),
                () -> 4,
                ReplayGate.NONE,
                dev.sebridge.fleet.streams.ViewsGate.NONE,
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
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  /**
   * Ninety days; every day ten VMs are scaled out and each gets maintenance: a platform Redeploy (a
   * policy's rollout takes it), a user Reboot (a policy approves it) or an operator's rollout. Each
   * lives three days and is scaled in; every fifth is deleted with its event still open, and never
   * heard from again. From the day the longest rule has turned over (30 days of history, 7 of
   * silence), every store, and the policy's rollout record, stays the same size.
   */
  @Test
  void monthsOfAChurningFleetLeaveEveryStoreFlat() throws Exception {
    Map<String, Integer> day45 = null;
    int rolloutBytes45 = 0;
    List<VmIdentity> alive = new ArrayList<>();
    Map<VmIdentity, Integer> bornOn = new LinkedHashMap<>();
    for (int day = 0; day < 90; day++) {
      List<VmIdentity> born = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        VmIdentity vm =
            AgentEnvelopes.vm(
                "vm-" + day + "-" + i, "web-" + day + "-" + i, Integer.toString(i % 3 + 1), "web");
        born.add(vm);
        bornOn.put(vm, day);
        heartbeat(vm);
      }
      alive.addAll(born);
      for (int i = 0; i < born.size(); i++) {
        VmIdentity vm = born.get(i);
        String id = "E-" + day + "-" + i;
        String kind = i % 3 == 0 ? "Redeploy" : "Reboot";
        String source = i % 3 == 1 ? "User" : "Platform";
        report(vm, id, kind, source, TransitionType.SCHEDULED, "Scheduled");
        if (i % 3 == 2) {
          rollouts.pipeInput(
              "op-" + day + "-" + i,
              new RolloutCommand(
                  "op-" + day + "-" + i,
                  RolloutCommand.CREATE,
                  new RolloutSpec(
                      List.of(id), "1", List.of("zone"), Duration.ZERO, Duration.ofHours(2)),
                  null,
                  null,
                  "patch",
                  "alice",
                  clock.instant(),
                  "api"),
              clock.instant());
        }
      }
      advance(Duration.ofMinutes(30));
      // The platform starts each event (NotBefore), then completes it; the agent is back after.
      for (int i = 0; i < born.size(); i++) {
        if (i % 5 == 4) {
          alive.remove(born.get(i)); // deleted mid-event: never heard from again
          continue;
        }
        report(
            born.get(i),
            "E-" + day + "-" + i,
            i % 3 == 0 ? "Redeploy" : "Reboot",
            i % 3 == 1 ? "User" : "Platform",
            TransitionType.STARTED,
            "Started");
      }
      advance(Duration.ofMinutes(30));
      for (int i = 0; i < born.size(); i++) {
        if (i % 5 == 4) {
          continue;
        }
        report(
            born.get(i),
            "E-" + day + "-" + i,
            i % 3 == 0 ? "Redeploy" : "Reboot",
            i % 3 == 1 ? "User" : "Platform",
            TransitionType.COMPLETED,
            "Completed");
        advance(Duration.ofSeconds(1));
        heartbeat(born.get(i));
      }
      // The rest of the day: heartbeats every six hours from the live VMs; three days old, scaled
      // in.
      for (int h = 0; h < 4; h++) {
        advance(Duration.ofHours(h == 0 ? 5 : 6));
        final int today = day;
        alive.removeIf(vm -> today - bornOn.get(vm) >= 3);
        alive.forEach(this::heartbeat);
      }
      advance(Duration.ofMinutes(60).minusSeconds(born.size() - 2));
      if (day == 44) {
        day45 = sizes();
        rolloutBytes45 = policyRolloutBytes();
      }
    }
    Map<String, Integer> day90 = sizes();
    int rolloutBytes90 = policyRolloutBytes();
    System.out.printf(
        "RETENTION after 45 days: %s, policy rollout %d bytes; after 90 days: %s, %d bytes%n",
        day45, rolloutBytes45, day90, rolloutBytes90);
    for (String store : STORES) {
      assertThat(day90.get(store))
          .as("%s after 90 days (after 45: %s)", store, day45.get(store))
          .isLessThanOrEqualTo(day45.get(store));
    }
    assertThat(rolloutBytes90)
        .as("the policy's rollout record")
        .isLessThanOrEqualTo(rolloutBytes45);
    // What the rules bound them to: VMs heard from in the last 7 days (10 a day), events of the
    // last day or so plus those of VMs not yet gone, 30 days of requests and rollouts.
    // What the rules bound them to, ten VMs a day: VMs heard from in the last 7 days (each lives
    // 3), 30 days of decisions (one an event), of requests and of operators' rollouts (3 a day).
    assertThat(day90.get(FleetTopology.VM_STATE)).isLessThanOrEqualTo(10 * (3 + 7 + 1));
    assertThat(day90.get(FleetTopology.POLICY_STATE)).isLessThanOrEqualTo(31 * 10);
    assertThat(day90.get(FleetTopology.REQUEST_STATE)).isLessThanOrEqualTo(31 * 10);
    assertThat(day90.get(FleetTopology.ROLLOUT_STATE)).isLessThanOrEqualTo(31 * 3 + 1);
    assertThat(view(FleetTopology.EVENTS_VIEW).get("e-0-0")).as("day 0's event").isNull();
    assertThat(view(FleetTopology.ROLLOUTS_VIEW).get("op-0-2")).as("day 0's rollout").isNull();
  }

  /**
   * A VM deleted with its event open (a Terminate, a scale-in) never reports it over. Once nothing
   * was heard from it for {@code fleet.vm-retention} while the rest of the fleet spoke (stream
   * time), its view is gone and its part closes as inferred (vanished), which closes the event. The
   * ledger still counts it: silence is never taken for "back" (it might be only its agent), until
   * it is heard from or the ledger's own 30 days pass. A fleet that goes silent as a whole (or a
   * service that was down) vanishes nothing.
   */
  @Test
  void anEventOfAVmThatIsGoneClosesAsInferredVanishedAndItStillCounts() {
    VmIdentity vm = AgentEnvelopes.vm("vm-gone", "web-gone", "1", "web");
    VmIdentity other = AgentEnvelopes.vm("vm-other", "web-other", "2", "web");
    heartbeat(vm);
    heartbeat(other);
    report(vm, "E-GONE", "Redeploy", "Platform", TransitionType.SCHEDULED, "Scheduled");
    advance(Duration.ofSeconds(2));
    report(vm, "E-GONE", "Redeploy", "Platform", TransitionType.STARTED, "Started");
    advance(Duration.ofMinutes(1));
    assertThat(ledger()).as("started by the platform: counted").hasSize(1);

    // Eight days in which no agent says anything (or the service is down): nobody vanishes.
    for (int h = 0; h < 8 * 24; h++) {
      advance(Duration.ofHours(1));
    }
    assertThat(view(FleetTopology.VMS_VIEW).get("vm-gone")).as("a silent fleet").isNotNull();
    // Its event, nothing heard of it for a week, closed as vanished (no maintenance lasts so
    // long); the ledger still counts the VM.
    EventView week = (EventView) view(FleetTopology.EVENTS_VIEW).get("e-gone");
    assertThat(week.open()).isFalse();
    assertThat(week.vms().get("vm-gone").vanished()).isTrue();
    assertThat(ledger().get("vm-gone|e-gone").backAt()).isNull();

    // Another VM speaks: the fleet has now heard something eight days after vm-gone's last word.
    heartbeat(other);
    advance(Duration.ofSeconds(10));
    assertThat(view(FleetTopology.VMS_VIEW).get("vm-gone")).as("gone: its view deleted").isNull();
    EventView e = (EventView) view(FleetTopology.EVENTS_VIEW).get("e-gone");
    assertThat(e.open()).isFalse();
    VmEventState part = e.vms().get("vm-gone");
    assertThat(part.status()).isEqualTo("inferred");
    assertThat(part.guess()).isEqualTo("vanished");
    assertThat(part.vanished()).isTrue();
    assertThat(ledger().get("vm-gone|e-gone").backAt())
        .as("still counted: nothing says it is back (it is also counted by name, as unknown)")
        .isNull();

    // A day later (fleet.closed-retention) the event is forgotten; the ledger still counts it.
    for (int h = 0; h < 25; h++) {
      heartbeat(other);
      advance(Duration.ofHours(1));
    }
    assertThat(view(FleetTopology.EVENTS_VIEW).get("e-gone")).isNull();
    assertThat(ledger().get("vm-gone|e-gone").backAt()).isNull();
  }

  /**
   * An agent that lost its state (a tracker it could not read, a VM reimaged under its vmId) never
   * reports the end of an event it reported: the event stayed open for good, with its decisions and
   * its copy in every instance. Nothing heard of it for {@code fleet.vm-retention}, its NotBefore
   * as long past, its parts close as vanished; the ledger takes its VM for back once heard from
   * after that, and a day later the event is forgotten.
   */
  @Test
  void anEventALiveAgentNeverEndsClosesAfterAWeekAndIsForgotten() {
    VmIdentity vm = AgentEnvelopes.vm("vm-amnesic", "web-amnesic", "1", "web");
    heartbeat(vm);
    report(vm, "E-LOST", "Reboot", "Platform", TransitionType.SCHEDULED, "Scheduled");
    ObjectNode far =
        AgentEnvelopes.imdsEvent(
            "E-FAR", "Reboot", "Scheduled", List.of(vm.name()), T0.plus(Duration.ofDays(3650)));
    envelopes.pipeInput(
        vm.vmId(), agents.transition(TransitionType.SCHEDULED, vm, far, false), clock.instant());
    advance(Duration.ofSeconds(2));
    report(vm, "E-LOST", "Reboot", "Platform", TransitionType.STARTED, "Started");
    advance(Duration.ofMinutes(1));
    assertThat(ledger()).hasSize(1);
    for (int h = 0; h < 7 * 24 - 1; h++) {
      heartbeat(vm);
      advance(Duration.ofHours(1));
    }
    assertThat(((EventView) view(FleetTopology.EVENTS_VIEW).get("e-lost")).open()).isTrue();
    for (int h = 0; h < 2; h++) {
      heartbeat(vm);
      advance(Duration.ofHours(1));
    }
    EventView e = (EventView) view(FleetTopology.EVENTS_VIEW).get("e-lost");
    assertThat(e.open()).as("nothing heard of it for a week").isFalse();
    assertThat(e.vms().get("vm-amnesic").vanished()).isTrue();
    for (int h = 0; h < 25; h++) {
      heartbeat(vm);
      advance(Duration.ofHours(1));
    }
    assertThat(view(FleetTopology.EVENTS_VIEW).get("e-lost")).as("forgotten").isNull();
    assertThat(view(FleetTopology.EVENTS_VIEW).get("e-far"))
        .as("a NotBefore years ahead keeps it no longer")
        .isNull();
    advance(Duration.ofSeconds(2)); // the ledger sees the event gone
    heartbeat(vm);
    advance(Duration.ofSeconds(2));
    assertThat(ledger().get("vm-amnesic|e-lost").backAt()).as("heard from: back").isNotNull();
  }

  /**
   * An agent whose clock runs a year ahead stamps its reports a year ahead. Taken as when the event
   * was last heard of, that time kept an event it never ends open for a year past the week, and an
   * event it ended kept for a year past the day.
   */
  @Test
  void anAgentsClockAYearAheadKeepsNoEventLonger() {
    VmIdentity vm = AgentEnvelopes.vm("vm-ahead", "web-ahead", "1", "web");
    AgentEnvelopes ahead = new AgentEnvelopes(java.time.Clock.offset(clock, Duration.ofDays(365)));
    heartbeat(vm);
    for (String id : List.of("E-AHEAD", "E-AHEAD-DONE")) {
      ObjectNode scheduled =
          AgentEnvelopes.imdsEvent(
              id,
              "Reboot",
              "Scheduled",
              List.of(vm.name()),
              clock.instant().plus(Duration.ofDays(365)).plusSeconds(900));
      envelopes.pipeInput(
          vm.vmId(),
          ahead.transition(TransitionType.SCHEDULED, vm, scheduled, false),
          clock.instant());
      ObjectNode started =
          AgentEnvelopes.imdsEvent(id, "Reboot", "Started", List.of(vm.name()), null);
      envelopes.pipeInput(
          vm.vmId(), ahead.transition(TransitionType.STARTED, vm, started, false), clock.instant());
    }
    advance(Duration.ofSeconds(2));
    ObjectNode done =
        AgentEnvelopes.imdsEvent("E-AHEAD-DONE", "Reboot", "Started", List.of(vm.name()), null);
    envelopes.pipeInput(
        vm.vmId(), ahead.transition(TransitionType.COMPLETED, vm, done, false), clock.instant());
    advance(Duration.ofMinutes(1));
    assertThat(((EventView) view(FleetTopology.EVENTS_VIEW).get("e-ahead-done")).open()).isFalse();
    for (int h = 0; h < 26; h++) {
      heartbeat(vm);
      advance(Duration.ofHours(1));
    }
    assertThat(view(FleetTopology.EVENTS_VIEW).get("e-ahead-done"))
        .as("closed a day ago by the service's clock: forgotten")
        .isNull();
    assertThat(((EventView) view(FleetTopology.EVENTS_VIEW).get("e-ahead")).open())
        .as("a day without a word: open")
        .isTrue();
    for (int h = 26; h < 7 * 24 + 2; h++) {
      heartbeat(vm);
      advance(Duration.ofHours(1));
    }
    EventView e = (EventView) view(FleetTopology.EVENTS_VIEW).get("e-ahead");
    assertThat(e).as("closed an hour ago at most: kept a day").isNotNull();
    assertThat(e.open()).as("nothing heard of it for a week, by the service's clock").isFalse();
  }

  /**
   * A policy's rollout of a version no longer in force, nothing left in it, is deleted after {@code
   * fleet.history-retention}; the version in force keeps its own. Kept for good before, each edit
   * of the policies left one per rollout rule behind, read again every tick.
   */
  @Test
  void aPolicysRolloutOfAnEarlierVersionIsDeletedOnceItHasNothingLeft() {
    for (int version : List.of(0, 1)) {
      rollouts.pipeInput(
          "policy-40-redeploy-v" + version,
          new RolloutCommand(
              "policy-40-redeploy-v" + version,
              RolloutCommand.CREATE,
              new RolloutSpec(List.of(), "1", List.of("zone"), Duration.ZERO, Duration.ofHours(2)),
              null,
              null,
              "policy",
              "policy:40-redeploy",
              clock.instant(),
              "policy:40-redeploy@v" + version),
          clock.instant());
    }
    // An abort replayed from a fresh application id, of the version in force: it records no
    // version in its origin, and stays (the rule stays suspended).
    rollouts.pipeInput(
        "policy-40-redeploy-v1-2",
        new RolloutCommand(
            "policy-40-redeploy-v1-2",
            RolloutCommand.ABORT,
            null,
            null,
            null,
            "stop",
            "alice",
            clock.instant(),
            "api"),
        clock.instant());
    advance(Duration.ofSeconds(2));
    assertThat(view(FleetTopology.ROLLOUTS_VIEW).get("policy-40-redeploy-v0")).isNotNull();
    assertThat(
            ((Rollout) view(FleetTopology.ROLLOUTS_VIEW).get("policy-40-redeploy-v1-2")).origin())
        .isEqualTo("policy:");
    for (int h = 0; h < 29 * 24; h++) {
      advance(Duration.ofHours(1));
    }
    assertThat(view(FleetTopology.ROLLOUTS_VIEW).get("policy-40-redeploy-v0"))
        .as("within the history retention")
        .isNotNull();
    for (int h = 0; h < 2 * 24; h++) {
      advance(Duration.ofHours(1));
    }
    assertThat(view(FleetTopology.ROLLOUTS_VIEW).get("policy-40-redeploy-v0")).isNull();
    assertThat(view(FleetTopology.ROLLOUTS_VIEW).get("policy-40-redeploy-v1"))
        .as("the version in force")
        .isNotNull();
    assertThat(view(FleetTopology.ROLLOUTS_VIEW).get("policy-40-redeploy-v1-2"))
        .as("an abort of the version in force, whatever its origin says")
        .isNotNull();
  }

  private void heartbeat(VmIdentity vm) {
    envelopes.pipeInput(vm.vmId(), agents.heartbeat(vm, Duration.ofMinutes(5)), clock.instant());
  }

  private void report(
      VmIdentity vm, String id, String type, String source, TransitionType t, String status) {
    ObjectNode e =
        AgentEnvelopes.imdsEvent(
            id,
            type,
            status,
            List.of(vm.name()),
            status.equals("Scheduled") ? clock.instant().plusSeconds(900) : null);
    e.put("EventSource", source);
    envelopes.pipeInput(vm.vmId(), agents.transition(t, vm, e, false), clock.instant());
  }

  /** The agents' clock and the driver's wall clock, together. */
  private void advance(Duration d) {
    clock.advance(d);
    driver.advanceWallClockTime(d);
  }

  private Map<String, Integer> sizes() {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String store : STORES) {
      out.put(store, (int) driver.getKeyValueStore(store).approximateNumEntries());
    }
    return out;
  }

  /** The policy's rollout, header and entries, as the views hold it. */
  private int policyRolloutBytes() throws Exception {
    String id = "policy-40-redeploy-v1";
    Object r = view(FleetTopology.ROLLOUTS_VIEW).get(id);
    assertThat(r).as("the policy's rollout").isNotNull();
    int bytes = JSON.writeValueAsBytes((Rollout) r).length;
    try (var it =
        view(FleetTopology.ROLLOUT_PARTS_VIEW)
            .range(
                dev.sebridge.fleet.rollout.RolloutPart.from(id),
                dev.sebridge.fleet.rollout.RolloutPart.to(id))) {
      while (it.hasNext()) {
        bytes += JSON.writeValueAsBytes(it.next().value).length;
      }
    }
    return bytes;
  }

  @SuppressWarnings("unchecked")
  private KeyValueStore<String, Object> view(String store) {
    return (KeyValueStore<String, Object>) (KeyValueStore<?, ?>) driver.getKeyValueStore(store);
  }

  private Map<String, LedgerEntry> ledger() {
    Map<String, LedgerEntry> out = new LinkedHashMap<>();
    KeyValueStore<String, LedgerEntry> s = driver.getKeyValueStore(FleetTopology.LEDGER_STATE);
    try (var all = s.all()) {
      all.forEachRemaining(kv -> out.put(kv.key, kv.value));
    }
    return out;
  }
}
