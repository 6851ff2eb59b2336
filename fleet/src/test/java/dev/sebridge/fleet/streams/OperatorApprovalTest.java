package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutActions;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import dev.sebridge.fleet.rollout.World;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An operator's approval decided by the rollouts task against the fleet-wide ledger. */
class OperatorApprovalTest {
  static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

  /**
   * No rollout active, and the rollouts task's view does not show the event the API's instance
   * approved yet (a failover's restore): the request is admitted, and the VMs it names count from
   * now where their views place them. Before, the ledger entered what this view listed for the
   * event, nothing, and a rollout started a moment later released the next VM of vm-a's zone while
   * vm-a's command was on its way.
   */
  @Test
  void anApprovalOfAnEventThisViewDoesNotShowYetCountsTheVmsItNames() {
    Fleet w = new Fleet();
    w.vm("vm-a", "1").vm("vm-b", "1").event("E2", "vm-b");
    Ledger ledger = Ledger.empty();
    ApprovalRequest r = request("req-1", "vm-a");

    ApprovalRequest decided = OperatorApproval.decide(r, ledger, w, T0);

    assertThat(decided.wasAdmitted()).isTrue();
    ledger.observe(w, T0.plusSeconds(1));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(1))).containsExactly("vm-a");
    Rollout rollout = rolloutOfE2();
    ledger.constrain(rollout);
    assertThat(ledger.refusal("E2", w, T0.plusSeconds(2)))
        .as("zone 1 has vm-a down: no room for vm-b")
        .isPresent();
  }

  /**
   * An approval of an event the views show names every VM the ledger counted for it, its commands'
   * resources claim: the names the event lists, a VM reporting it by its own.
   */
  @Test
  void anAdmittedApprovalNamesTheVmsTheLedgerCounted() {
    Fleet w = new Fleet();
    w.vm("vm-a", "1").vm("vm-c", "2").event("E1", List.of("vm-a", "vm-c", "vm-x"), "vm-a");
    ApprovalRequest decided =
        OperatorApproval.decide(request("req-6", "vm-a"), Ledger.empty(), w, T0);
    assertThat(decided.wasAdmitted()).isTrue();
    assertThat(decided.counted()).containsExactlyInAnyOrder("vm-a", "vm-c", "vm-x");
    assertThat(ResourcesClaim.of(decided)).containsOnlyKeys("E1");
  }

  /**
   * An approval of an event this instance's views do not show yet counts the VMs it asks for, and
   * its commands claim their names: an agent refuses the event if Azure lists another VM in it (one
   * the API's view showed and this one does not, or one Azure added since), which IMDS would
   * release too, counted nowhere until the views show the event. Before, such an approval claimed
   * nothing, and vm-c went down with vm-a uncounted in zone 2. A VM asked for that this instance
   * has no view of has no name here: nothing is claimed.
   */
  @Test
  void anApprovalOfAnEventTheViewsDoNotShowClaimsTheNamesItCounted() {
    Fleet behind = new Fleet();
    behind.vm("vm-a", "1").vm("vm-c", "2");
    ApprovalRequest unseen =
        OperatorApproval.decide(request("req-7", "vm-a"), Ledger.empty(), behind, T0);
    assertThat(unseen.wasAdmitted()).isTrue();
    assertThat(unseen.counted()).containsExactly("vm-a");
    assertThat(ResourcesClaim.of(unseen)).containsEntry("E1", List.of("vm-a"));

    // The view shows the event, listing vm-c only (vm-a's report is not here yet): both are named.
    behind.event("E1", List.of("vm-c"), "vm-c");
    ApprovalRequest partly =
        OperatorApproval.decide(request("req-8", "vm-a"), Ledger.empty(), behind, T0);
    assertThat(partly.counted()).containsExactlyInAnyOrder("vm-c", "vm-a");

    // VMs without an agent acknowledged for through the Maintenance API are named too.
    ApprovalRequest acknowledging =
        OperatorApproval.decide(
            new ApprovalRequest(
                "req-10",
                "E1",
                List.of("vm-a"),
                "patch",
                "alice",
                T0,
                "api",
                false,
                null,
                null,
                new dev.sebridge.fleet.model.Acknowledgement(
                    "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines"
                        + "/vm-d/providers/Microsoft.Maintenance/scheduledevents/E1",
                    List.of("vm-d"))),
            Ledger.empty(),
            new Fleet().vm("vm-a", "1"),
            T0);
    assertThat(acknowledging.refusal()).isNull();
    assertThat(acknowledging.counted()).containsExactlyInAnyOrder("vm-a", "vm-d");

    // One VM asked for that this instance has no view of, beside one it has: nothing is claimed.
    ApprovalRequest stranger =
        OperatorApproval.decide(
            new ApprovalRequest(
                "req-9", "E1", List.of("vm-a", "vm-new"), "patch", "alice", T0, "api"),
            Ledger.empty(),
            new Fleet().vm("vm-a", "1"),
            T0);
    assertThat(stranger.wasAdmitted()).isTrue();
    assertThat(stranger.counted()).isNull();

    // The views hold the event closed, with no VM listed: the VMs asked for are named.
    ApprovalRequest closed =
        OperatorApproval.decide(
            request("req-11", "vm-a"),
            Ledger.empty(),
            new Fleet().vm("vm-a", "1").closed("E1"),
            T0);
    assertThat(closed.counted()).containsExactly("vm-a");
  }

  /**
   * The views catch up with an event approved while they did not show it: another VM's report comes
   * first (vm-a is a name the event lists, no more), then vm-a's. vm-a counts once, by vmId in its
   * zone. The entry the approval made had no name, so the entry by name the event's view made
   * stayed beside it when vm-a reported, counted in every group of every rollout.
   */
  @Test
  void anApprovedVmCountsOnceWhenTheViewsCatchUp() {
    Fleet w = new Fleet();
    w.vm("vm-a", "1").vm("vm-c", "2");
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-1", "vm-a"), ledger, w, T0);
    w.event("E1", List.of("vm-a", "vm-c"), "vm-c");
    ledger.observe(w, T0.plusSeconds(1));
    w.event("E1", List.of("vm-a", "vm-c"), "vm-c", "vm-a");
    ledger.observe(w, T0.plusSeconds(2));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(2)))
        .containsExactlyInAnyOrder("vm-a", "vm-c");
  }

  /**
   * A VM this instance has no view of (a new VM, its first envelopes not here yet) is counted by
   * name, in every group, not by vmId in no zone.
   */
  @Test
  void anApprovedVmThisInstanceDoesNotKnowCountsInEveryGroup() {
    Fleet w = new Fleet();
    w.vm("vm-b", "1").event("E2", "vm-b");
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-2", "vm-new"), ledger, w, T0);
    ledger.constrain(rolloutOfE2());
    assertThat(ledger.refusal("E2", w, T0.plusSeconds(1))).isPresent();
  }

  /**
   * The views do not show the approved event for an hour: vm-a is taken for over and back at its
   * next heartbeat. Then they show it, vm-a's part open (Azure held it): vm-a counts again. Made
   * without a name, its entry learnt it and dropped the entry by name that still counted it, and
   * kept it back: vm-a counted nowhere while its event was still to run.
   */
  @Test
  void anApprovedVmTakenForOverWhileTheViewsLaggedCountsAgainWhenTheyShowItsPartOpen() {
    Fleet w = new Fleet();
    w.vm("vm-a", "1").vm("vm-c", "2");
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-3", "vm-a"), ledger, w, T0);
    backAfterAnHourUnseen(w, ledger);
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(3701))).isEmpty();
    w.event("E1", List.of("vm-a", "vm-c"), "vm-c");
    ledger.observe(w, T0.plusSeconds(3702));
    w.event("E1", List.of("vm-a", "vm-c"), "vm-c", "vm-a");
    ledger.observe(w, T0.plusSeconds(3703));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(3703))).contains("vm-a");
  }

  /**
   * The views do not show E1 for an hour after vm-a's approval: vm-a is taken for over and back.
   * Approved again (its agent refused the first, or it was lost) while the views still do not show
   * E1, vm-a counts again from now, as the second request's claim says. Before, the entry the first
   * approval made stood as back, nothing was entered, and the claim named vm-a counted: its agent
   * approved, and vm-a went down counted nowhere.
   */
  @Test
  void anApprovedVmTakenForOverCountsAgainWhenApprovedAgainUnseen() {
    Fleet w = new Fleet();
    w.vm("vm-a", "1").vm("vm-c", "2");
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-3", "vm-a"), ledger, w, T0);
    backAfterAnHourUnseen(w, ledger);
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(3701))).isEmpty();
    ApprovalRequest again =
        OperatorApproval.decide(request("req-4", "vm-a"), ledger, w, T0.plusSeconds(3702));
    assertThat(again.counted()).containsExactly("vm-a");
    ledger.observe(w, T0.plusSeconds(3703));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(3703))).containsExactly("vm-a");
  }

  /**
   * Approved first while this instance had no view of vm-new (entered by its vmId as its name),
   * approved again an hour later, the views now knowing vm-new but still not showing the event:
   * vm-new counts from the second approval. Before, the second merged the first's entry and kept
   * its release time: taken for over at once (an hour unseen), vm-new was back at its next
   * heartbeat while the second approval's commands claimed it counted.
   */
  @Test
  void aVmUnknownAtTheFirstApprovalCountsFromTheSecond() {
    Fleet w = new Fleet();
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-4", "vm-new"), ledger, w, T0);
    w.vm("vm-new", "1").heartbeat("vm-new", T0.plusSeconds(3600));
    ApprovalRequest again =
        OperatorApproval.decide(request("req-5", "vm-new"), ledger, w, T0.plusSeconds(3650));
    assertThat(again.counted()).containsExactly("vm-new");
    ledger.observe(w, T0.plusSeconds(3651));
    w.heartbeat("vm-new", T0.plusSeconds(3700));
    ledger.observe(w, T0.plusSeconds(3701));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(3701))).containsExactly("vm-new");
  }

  /**
   * The same, the views showing the event with vm-a only placed by the inventory (no part of its
   * own): it stays back. Reopened without a part, it had no hour to end it, and held its group
   * until the event closed, 30 days for an event that stays open.
   */
  @Test
  void anApprovedVmTakenForOverStaysBackWhenTheViewsShowItWithoutAPart() {
    Fleet w = new Fleet();
    w.vm("vm-a", "1").vm("vm-c", "2");
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-5", "vm-a"), ledger, w, T0);
    backAfterAnHourUnseen(w, ledger);
    w.event("E1", List.of("vm-a", "vm-c"), "vm-c").placed("vm-a");
    ledger.observe(w, T0.plusSeconds(3702));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(3702))).doesNotContain("vm-a");
  }

  /**
   * A VM approved while this instance had no view of it (entered by its vmId as its name), then
   * known and reporting the event: it counts once, by vmId. The entry by name stayed beside it,
   * counted in every group until an hour after the event's NotBefore.
   */
  @Test
  void anApprovedVmUnknownThenKnownCountsOnce() {
    Fleet w = new Fleet();
    Ledger ledger = Ledger.empty();
    OperatorApproval.decide(request("req-4", "vm-new"), ledger, w, T0);
    assertThat(ledger.unavailable(Duration.ZERO, T0)).hasSize(1);
    w.vm("vm-new", "1").eventNamed("E1", "vm-new", "web-new");
    ledger.observe(w, T0.plusSeconds(1));
    assertThat(ledger.unavailable(Duration.ZERO, T0.plusSeconds(1))).containsExactly("vm-new");
  }

  /**
   * E1 not in the views for an hour: vm-a's entry taken for over, and back at its next heartbeat.
   */
  private static void backAfterAnHourUnseen(Fleet w, Ledger ledger) {
    ledger.observe(w, T0.plusSeconds(3601));
    w.heartbeat("vm-a", T0.plusSeconds(3700));
    ledger.observe(w, T0.plusSeconds(3701));
  }

  /** alice's approval of E1 for one VM. */
  private static ApprovalRequest request(String requestId, String vmId) {
    return new ApprovalRequest(
        requestId, "E1", List.of(vmId), "patch", "alice", T0, "api", false, null, null);
  }

  /** bob's rollout of E2, at most one VM down per zone. */
  private static Rollout rolloutOfE2() {
    return RolloutActions.apply(
        null,
        new RolloutCommand(
            "r",
            RolloutCommand.CREATE,
            new RolloutSpec(
                List.of("E2"),
                "1",
                List.of("zone"),
                Duration.ZERO,
                Duration.ofMinutes(5),
                Duration.ofSeconds(30)),
            null,
            null,
            "t",
            "bob",
            T0,
            "api"),
        T0);
  }

  /** VMs in zones, and events each one VM reported Scheduled. */
  static final class Fleet implements World {
    private final Map<String, String> zones = new HashMap<>();
    private final Map<String, Map<String, VmEventState>> events = new HashMap<>();
    private final Map<String, List<String>> resources = new HashMap<>();

    Fleet vm(String vmId, String zone) {
      zones.put(vmId, zone);
      return this;
    }

    Fleet event(String eventId, String vmId) {
      return event(eventId, List.of(vmId), vmId);
    }

    /** An event listing one VM by its name, which reported it. */
    Fleet eventNamed(String eventId, String vmId, String name) {
      events.put(
          eventId,
          Map.of(
              vmId,
              new VmEventState(vmId, name, zones.get(vmId), null, "scheduled", null, T0, null)));
      resources.put(eventId, List.of(name));
      return this;
    }

    /** An event listing these names (each VM is named as its vmId), reported by these VMs. */
    Fleet event(String eventId, List<String> names, String... reporting) {
      Map<String, VmEventState> parts = new HashMap<>();
      for (String vmId : reporting) {
        parts.put(
            vmId, new VmEventState(vmId, vmId, zones.get(vmId), null, "scheduled", null, T0, null));
      }
      events.put(eventId, parts);
      resources.put(eventId, names);
      return this;
    }

    @Override
    public Map<String, VmEventState> eventVms(String eventId) {
      return events.getOrDefault(eventId, Map.of());
    }

    @Override
    public List<String> resources(String eventId) {
      return resources.getOrDefault(eventId, List.of());
    }

    @Override
    public boolean open(String eventId) {
      return events.containsKey(eventId);
    }

    @Override
    public Collection<String> openEvents() {
      return events.keySet();
    }

    @Override
    public boolean viewed(String eventId) {
      return events.containsKey(eventId) || closed.contains(eventId);
    }

    private final java.util.Set<String> closed = new java.util.HashSet<>();
    private final java.util.Set<String> placed = new java.util.HashSet<>();

    /** The inventory places this name (a vmId of the same spelling) in the events listing it. */
    Fleet placed(String name) {
      placed.add(name);
      return this;
    }

    @Override
    public String placed(String eventId, String name) {
      return placed.contains(name) ? name : null;
    }

    /** An event the views hold closed, with no part. */
    Fleet closed(String eventId) {
      closed.add(eventId);
      return this;
    }

    @Override
    public Collection<String> requestedEvents() {
      return List.of();
    }

    @Override
    public Optional<Instant> notBefore(String eventId) {
      return Optional.empty();
    }

    @Override
    public Optional<Instant> lastHeartbeat(String vmId) {
      return zones.containsKey(vmId)
          ? Optional.of(heartbeats.getOrDefault(vmId, T0))
          : Optional.empty();
    }

    private final Map<String, Instant> heartbeats = new HashMap<>();

    Fleet heartbeat(String vmId, Instant at) {
      heartbeats.put(vmId, at);
      return this;
    }

    @Override
    public String name(String vmId) {
      return zones.containsKey(vmId) ? vmId : null; // each VM is named as its vmId
    }

    @Override
    public String attribute(String vmId, String attribute) {
      return attribute.equals("zone") ? zones.get(vmId) : null;
    }

    @Override
    public int groupSize(List<String> groupBy, String group) {
      return (int) zones.values().stream().filter(z -> group.equals("zone=" + z)).count();
    }

    @Override
    public Optional<Result> unaccepted(String requestId, String vmId) {
      return Optional.empty();
    }
  }
}
