package dev.sebridge.fleet.rollout;

import static dev.sebridge.fleet.rollout.FleetLedgerTest.T0;
import static dev.sebridge.fleet.rollout.FleetLedgerTest.at;
import static dev.sebridge.fleet.rollout.FleetLedgerTest.rollout;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.agentless.AzureEventStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * VMs without an agent that Azure's inventory places by name (fleet.inventory.*): the ledger counts
 * them in their own groups instead of every group, so a rollout can release their events, through
 * Azure's Maintenance API when no agent of the event can approve it (fleet.acknowledge.enabled).
 */
class PlacedVmsTest {
  static final String ARM =
      "/subscriptions/s1/resourceGroups/main/providers/Microsoft.Compute/virtualMachines/db-1"
          + "/providers/Microsoft.Maintenance/scheduledevents/E0";

  /** db-1 (no agent) is in zone 2; vm-a in zone 1, vm-b and vm-c in zone 2, with agents. */
  static TestWorld world() {
    return new TestWorld()
        .vm("vm-a", "1")
        .vm("vm-b", "2")
        .vm("vm-c", "2")
        .event("E0", "db-1")
        .azure("E0", AzureEventStatus.SCHEDULED)
        .event("E1", "vm-a")
        .report("E1", "vm-a", "scheduled", T0)
        .event("E2", "vm-b")
        .report("E2", "vm-b", "scheduled", T0);
  }

  @Test
  void aPlacedVmTakesRoomInItsOwnGroupOnly() {
    TestWorld names = world();
    Ledger byName = Ledger.empty();
    byName.constrain(rollout("r", "1", "E1", "E2"));
    assertThat(byName.refusal("E0", names, at(1)))
        .as("without the inventory db-1 could be in any group")
        .hasValueSatisfying(why -> assertThat(why).contains("db-1"));

    TestWorld w = world().placedVm("db-1", "2");
    Ledger l = Ledger.empty();
    l.constrain(rollout("r", "1", "E1", "E2"));
    assertThat(l.refusal("E0", w, at(1))).as("placed in zone 2, which has room").isEmpty();
    l.release("E0", w, "api", at(1));
    LedgerEntry e = l.entries().get("db-1|e0");
    assertThat(e.placed()).isTrue();
    assertThat(e.group(List.of("zone"))).isEqualTo("zone=2");
    assertThat(l.refusal("E2", w, at(2)))
        .as("zone 2 is full")
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
    assertThat(l.refusal("E1", w, at(2))).as("zone 1 is not touched").isEmpty();
  }

  /**
   * A placed VM has no agent to say it is back: 10 minutes after the fleet sees its event closed,
   * as a VM known by name; counted again while Azure says the event runs.
   */
  @Test
  void aPlacedVmIsBackAsAVmKnownByNameIs() {
    TestWorld w = world().placedVm("db-1", "2");
    Ledger l = Ledger.empty();
    l.release("E0", w, "api", at(0));
    l.constrain(rollout("r", "1", "E2"));
    w.azure("E0", AzureEventStatus.STARTED);
    l.observe(w, at(2 * 3600));
    assertThat(l.refusal("E2", w, at(2 * 3600))).as("running: no cap").isPresent();
    w.azure("E0", AzureEventStatus.COMPLETED);
    l.observe(w, at(2 * 3600 + 1));
    l.observe(w, at(2 * 3600 + 600));
    assertThat(l.refusal("E2", w, at(2 * 3600 + 600))).isPresent();
    l.observe(w, at(2 * 3600 + 602));
    assertThat(l.refusal("E2", w, at(2 * 3600 + 602))).isEmpty();
  }

  /** Its agent reports the event after all: then it is back only when heard from, as any VM. */
  @Test
  void aPlacedVmWhoseAgentReportsIsBackOnlyWhenHeardFrom() {
    TestWorld w = world().vm("db-1", "2").placedVm("db-1", "2");
    Ledger l = Ledger.empty();
    l.release("E0", w, "api", at(0));
    assertThat(l.entries().get("db-1|e0").placed()).isTrue();
    w.report("E0", "db-1", "completed", at(30));
    l.observe(w, at(40));
    LedgerEntry e = l.entries().get("db-1|e0");
    assertThat(e.placed()).isFalse();
    assertThat(e.completedAt()).isEqualTo(at(30));
    l.observe(w, at(3 * 3600));
    assertThat(l.unavailable(Duration.ZERO, at(3 * 3600)))
        .as("no heartbeat after the completion: not back, whatever the clock")
        .contains("db-1");
    w.heartbeat("db-1", at(3 * 3600 + 5));
    l.observe(w, at(3 * 3600 + 10));
    assertThat(l.unavailable(Duration.ZERO, at(3 * 3600 + 10))).doesNotContain("db-1");
  }

  /**
   * Taken for back by the hour's cap (Azure still says Scheduled), then its agent reports the
   * event: down again, as any VM that reported a released event, until its agent says it is over
   * and is heard from after that.
   */
  @Test
  void aPlacedVmTakenForBackIsDownAgainWhenItsAgentReportsTheEvent() {
    // Azure's central delivery never told of E0 (the hour's cap applies); vm-c's agent keeps it
    // open
    TestWorld w =
        new TestWorld()
            .vm("vm-b", "2")
            .vm("vm-c", "1")
            .vm("db-1", "2")
            .placedVm("db-1", "2")
            .event("E0", "db-1", "vm-c")
            .report("E0", "vm-c", "scheduled", T0);
    Ledger l = Ledger.empty();
    l.release("E0", w, "api", at(0));
    l.observe(w, at(3601));
    assertThat(l.unavailable(Duration.ZERO, at(3601))).as("the hour's cap").doesNotContain("db-1");
    w.report("E0", "db-1", "scheduled", at(3700)).heartbeat("db-1", at(3700));
    l.observe(w, at(3710));
    assertThat(l.entries().get("db-1|e0").placed()).isFalse();
    assertThat(l.unavailable(Duration.ZERO, at(3710))).contains("db-1");
    w.report("E0", "db-1", "started", at(7200));
    l.observe(w, at(7300));
    assertThat(l.unavailable(Duration.ZERO, at(7300))).contains("db-1");
  }

  /**
   * Acknowledged while Azure says Scheduled: it may start hours later, and starts at NotBefore
   * whatever became of the acknowledgement. A placed VM takes room in its own group only, so it
   * counts as long as Azure says Scheduled (no hour's cap, which is for VMs known by name).
   */
  @Test
  void aPlacedVmCountsUntilAnHourAfterNotBeforeWhileItsEventIsOpen() {
    TestWorld w = world().placedVm("db-1", "2").notBefore("E0", at(4 * 3600));
    Ledger l = Ledger.empty();
    l.release("E0", w, "rollout:r", at(0));
    l.constrain(rollout("r", "1", "E2"));
    l.observe(w, at(5 * 3600 - 1));
    assertThat(l.refusal("E2", w, at(5 * 3600 - 1)))
        .as("still Scheduled, NotBefore an hour ago: zone 2 is full")
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
    l.observe(w, at(5 * 3600 + 1));
    assertThat(l.refusal("E2", w, at(5 * 3600 + 1))).as("an hour after NotBefore").isEmpty();
    w.azure("E0", AzureEventStatus.STARTED);
    l.observe(w, at(5 * 3600 + 2));
    assertThat(l.refusal("E2", w, at(5 * 3600 + 2))).as("it runs after all").isPresent();
  }

  /**
   * Approved at once, started by Azure at its NotBefore four hours later: the view's NotBefore is
   * empty from then (IMDS writes "" once an event started), and the VMs without an agent still
   * count an hour from the NotBefore the fleet saw last, for a placed VM and for one known by name
   * alike. Before, the rule read the view's NotBefore, found none, and took both for back an hour
   * after the approval, while Azure rebooted them.
   */
  @Test
  void aVmWithoutAnAgentCountsFromTheLastNotBeforeSeenAfterItsEventStarted() {
    for (boolean placed : List.of(true, false)) {
      TestWorld w = world().notBefore("E0", at(4 * 3600));
      if (placed) {
        w.placedVm("db-1", "2");
      }
      Ledger l = Ledger.empty();
      l.release("E0", w, "api", at(0));
      l.observe(w, at(3600));
      w.noNotBefore("E0"); // started
      l.observe(w, at(4 * 3600 + 60));
      l.observe(w, at(4 * 3600 + 1800));
      assertThat(l.unavailable(Duration.ZERO, at(4 * 3600 + 1800)))
          .as("placed %s: half an hour after it started", placed)
          .hasSize(1);
      l.observe(w, at(5 * 3600 + 1));
      assertThat(l.unavailable(Duration.ZERO, at(5 * 3600 + 1)))
          .as("placed %s: an hour after its NotBefore", placed)
          .isEmpty();
    }
  }

  /**
   * Known by name when approved, placed by the inventory after its event started (a refresh lists
   * it, or a reporter gives the scope): the placed entry keeps the NotBefore the by-name one saw.
   * Before, it took the view's, empty by then, and was back at once while Azure rebooted it.
   */
  @Test
  void aVmPlacedAfterItsEventStartedKeepsTheNotBeforeItsEntryByNameSaw() {
    TestWorld w = world().notBefore("E0", at(4 * 3600));
    Ledger l = Ledger.empty();
    l.release("E0", w, "api", at(0));
    l.observe(w, at(3600));
    w.noNotBefore("E0").placedVm("db-1", "2"); // started; the inventory places it now
    l.observe(w, at(4 * 3600 + 600));
    assertThat(l.entries().values()).singleElement().matches(LedgerEntry::placed);
    assertThat(l.unavailable(Duration.ZERO, at(4 * 3600 + 600))).hasSize(1);
  }

  /**
   * An unknown vmId reporting the event completed closes its view; the rollout does not take that
   * for over (nor does the ledger): db-1 stays started until Azure or a known VM says so.
   */
  @Test
  void anUnknownVmsCompletionDoesNotCompleteAPlacedVmInARollout() {
    TestWorld w = world().placedVm("db-1", "2").armId("E0", ARM).acknowledging();
    Rollout r = RolloutPlanner.step(rollout("r", "1", "E0"), w, Ledger.empty(), at(1)).rollout();
    w.azure("E0", AzureEventStatus.STARTED);
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(2)).rollout();
    w.unknownReport("E0", "rogue", "db-1", "completed", at(3));
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(20 * 60)).rollout();
    assertThat(r.vms().get(RolloutVm.key("db-1", "E0")).phase()).isEqualTo(RolloutVm.STARTED);
  }

  /**
   * An event only db-1 (placed, no agent) has: the rollout acknowledges it for db-1 through the
   * Maintenance API, follows Azure's word, and counts db-1 back 10 minutes after Azure says it
   * completed.
   */
  @Test
  void aRolloutReleasesAnEventOnlyAVmWithoutAnAgentHasThroughTheMaintenanceApi() {
    TestWorld w = world().placedVm("db-1", "2").armId("E0", ARM).acknowledging();
    Rollout r = rollout("r", "1", "E0");
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, Ledger.empty(), at(1));
    assertThat(s.releases()).hasSize(1);
    RolloutPlanner.Release release = s.releases().get(0);
    assertThat(release.vmIds()).isEmpty();
    assertThat(release.acknowledge()).containsExactly("db-1");
    assertThat(release.placed()).containsExactly("db-1");
    assertThat(s.rollout().waves().get(0).vmIds()).containsExactly("db-1");
    RolloutVm v = s.rollout().vms().get(RolloutVm.key("db-1", "E0"));
    assertThat(v.phase()).isEqualTo(RolloutVm.APPROVED);
    assertThat(v.group()).isEqualTo("zone=2");

    Ledger l = Ledger.empty();
    w.azure("E0", AzureEventStatus.STARTED);
    r = RolloutPlanner.step(s.rollout(), w, l, at(60)).rollout();
    assertThat(r.vms().get(RolloutVm.key("db-1", "E0")).phase()).isEqualTo(RolloutVm.STARTED);
    w.azure("E0", AzureEventStatus.COMPLETED);
    r = RolloutPlanner.step(r, w, l, at(120)).rollout();
    assertThat(r.vms().get(RolloutVm.key("db-1", "E0")).phase()).isEqualTo(RolloutVm.COMPLETED);
    r = RolloutPlanner.step(r, w, l, at(120 + 599)).rollout();
    assertThat(r.vms().get(RolloutVm.key("db-1", "E0")).phase()).isEqualTo(RolloutVm.COMPLETED);
    r = RolloutPlanner.step(r, w, l, at(120 + 600)).rollout();
    assertThat(r.vms().get(RolloutVm.key("db-1", "E0")).phase()).isEqualTo(RolloutVm.BACK);
    assertThat(r.state()).isEqualTo(Rollout.COMPLETED);
  }

  /**
   * An event of vm-a (reporting) and db-1 (placed, no agent), released by vm-a's command: vm-a's
   * agent refuses it as resources-changed (Azure added a VM). db-1, which no agent answers for,
   * goes back to pending with vm-a: the event is released again as a whole. Before, db-1 stayed
   * approved and the event was never released again (its VMs not all pending); the rollout halted
   * when db-1 was not back in time.
   */
  @Test
  void aRefusalForAVmAzureAddedSendsTheEventsPlacedVmsBackToPendingToo() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .placedVm("db-1", "2")
            .event("E3", "vm-a", "db-1")
            .report("E3", "vm-a", "scheduled", T0);
    RolloutPlanner.Step s = releasedThenRefused(w, "E3");
    assertThat(s.rollout().vms().get(RolloutVm.key("db-1", "E3")).phase())
        .isEqualTo(RolloutVm.APPROVED);
    // (this world does not say what the refused request counted: released again at once)
    RolloutPlanner.Step again = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(2));
    Rollout r = again.rollout();
    assertThat(r.halt()).isNull();
    assertThat(again.releases())
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.eventId()).isEqualTo("E3");
              assertThat(x.requestId()).isNotEqualTo(s.releases().get(0).requestId());
              assertThat(x.placed()).containsExactly("db-1");
            });
    for (String vm : List.of("vm-a", "db-1")) {
      RolloutVm v = r.vms().get(RolloutVm.key(vm, "E3"));
      assertThat(v.again()).as(vm).isEqualTo(1);
      assertThat(v.requestId()).as(vm).isEqualTo(again.releases().get(0).requestId());
    }
  }

  /**
   * vm-a went back to pending after its agent refused the release as resources-changed; then its
   * event is approved by another path (an operator, the VM's own agent for another request): the
   * rollout follows it as released, and the old refusal halts nothing. Before, vm-a kept the
   * refused request's id when it was taken for approved, and the refusal read under it halted the
   * rollout ("approval rejected on vm-a: resources-changed") for a release that had gone through.
   */
  @Test
  void aVmBackToPendingThatIsApprovedByAnotherPathIsNotHaltedByTheOldRefusal() {
    TestWorld w =
        new TestWorld().vm("vm-a", "1").event("E3", "vm-a").report("E3", "vm-a", "scheduled", T0);
    RolloutPlanner.Step s = releasedThenRefused(w, "E3");
    // (the views list no VM the refused request did not count yet: it waits to release again)
    w.everyRefusedRequestCounted("vm-a");
    Rollout r = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(2)).rollout();
    assertThat(r.vms().get(RolloutVm.key("vm-a", "E3")).phase()).isEqualTo(RolloutVm.PENDING);
    w.report("E3", "vm-a", "approved", at(3));
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(3)).rollout();
    assertThat(r.halt()).isNull();
    assertThat(r.vms().get(RolloutVm.key("vm-a", "E3")).phase()).isEqualTo(RolloutVm.APPROVED);
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(4)).rollout();
    assertThat(r.halt()).isNull();
  }

  /**
   * The same, the refusal arriving after the rollout saw the event approved by another path: vm-a
   * was already taken for released, under the refused request, when its agent's refusal came. It
   * halts nothing either.
   */
  @Test
  void aRefusalArrivingAfterAnotherPathReleasedTheVmHaltsNothing() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "2")
            .event("E3", "vm-a", "vm-b")
            .report("E3", "vm-a", "scheduled", T0)
            .report("E3", "vm-b", "scheduled", T0);
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "2", "E3"), w, Ledger.empty(), at(1));
    assertThat(s.releases()).hasSize(1);
    // vm-b's agent refuses first: both go back to pending, vm-a without a result of its own
    w.unaccepted("vm-b", "rejected", "resources-changed: E3 now lists web-9", "resources-changed");
    w.everyRefusedRequestCounted("vm-a", "vm-b");
    Rollout r = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(2)).rollout();
    assertThat(r.vms().get(RolloutVm.key("vm-a", "E3")).phase()).isEqualTo(RolloutVm.PENDING);
    // approved by another path and seen so; then vm-a's own refusal of the request arrives
    w.report("E3", "vm-a", "approved", at(3)).report("E3", "vm-b", "approved", at(3));
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(3)).rollout();
    w.unaccepted("vm-a", "rejected", "resources-changed: E3 now lists web-9", "resources-changed");
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(4)).rollout();
    assertThat(r.halt()).isNull();
    assertThat(r.vms().get(RolloutVm.key("vm-a", "E3")).phase()).isEqualTo(RolloutVm.APPROVED);
  }

  /**
   * The same, but vm-b (sent back to pending with vm-a, no result of its own yet) then answers the
   * refused request failed (its agent restarted mid-command: its POST may have gone out) and the
   * views show the event approved: that result halts the rollout, as any result under the rollout's
   * own request does. Only a VM's own resources-changed refusal stops counting.
   */
  @Test
  void aVmBackToPendingWhoseOwnAgentThenFailedTheRequestHalts() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "2")
            .event("E3", "vm-a", "vm-b")
            .report("E3", "vm-a", "scheduled", T0)
            .report("E3", "vm-b", "scheduled", T0);
    RolloutPlanner.Step s = releasedThenRefused(w, "E3");
    w.everyRefusedRequestCounted("vm-a", "vm-b");
    Rollout r = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(2)).rollout();
    assertThat(r.vms().get(RolloutVm.key("vm-b", "E3")).phase()).isEqualTo(RolloutVm.PENDING);
    w.unaccepted("vm-b", "failed", "interrupted: restarted while approving", "interrupted")
        .report("E3", "vm-b", "approved", at(3));
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(3)).rollout();
    assertThat(r.halt()).isNotNull();
    assertThat(r.halt().reason()).contains("interrupted");
  }

  /**
   * A request another VM's agent answered otherwise (it restarted mid-command: its POST may have
   * gone out) is not released again on vm-a's resources-changed: its result halts the rollout.
   */
  @Test
  void aRefusalBesideAnotherResultHaltsAndIsNotReleasedAgain() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "2")
            .event("E4", "vm-a", "vm-b")
            .report("E4", "vm-a", "scheduled", T0)
            .report("E4", "vm-b", "scheduled", T0);
    RolloutPlanner.Step s = releasedThenRefused(w, "E4");
    w.unaccepted("vm-b", "failed", "interrupted: whether posted is unknown", "interrupted");
    RolloutPlanner.Step again = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(2));
    assertThat(again.releases()).isEmpty();
    assertThat(again.rollout().halt()).isNotNull();
    assertThat(again.rollout().vms().get(RolloutVm.key("vm-a", "E4")).phase())
        .isEqualTo(RolloutVm.APPROVED);
  }

  /**
   * Refused as resources-changed, and the views never list a VM the refused request did not count
   * (Azure dropped it again before any report): the event waits for them until the rollout's
   * timeout, then halts saying so, not forever as plain pending.
   */
  @Test
  void anEventRefusedForAVmTheViewsNeverListHaltsAtItsTimeout() {
    TestWorld w =
        new TestWorld().vm("vm-a", "1").event("E5", "vm-a").report("E5", "vm-a", "scheduled", T0);
    RolloutPlanner.Step s = releasedThenRefused(w, "E5");
    w.everyRefusedRequestCounted("vm-a");
    Rollout r = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(2)).rollout();
    assertThat(r.vms().get(RolloutVm.key("vm-a", "E5")).phase())
        .as(r.vms() + " " + r.halt())
        .isEqualTo(RolloutVm.PENDING);
    assertThat(r.halt()).isNull();
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(2 + 5 * 60)).rollout();
    assertThat(r.halt()).isNull();
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(3 + 5 * 60)).rollout();
    assertThat(r.halt()).isNotNull();
    assertThat(r.halt().reason()).contains("resources-changed");
  }

  /**
   * The event released by rollout r (two VMs a zone) at once, then vm-a's agent refusing it as
   * resources-changed (Azure added web-9 to it).
   */
  private static RolloutPlanner.Step releasedThenRefused(TestWorld w, String eventId) {
    RolloutPlanner.Step s =
        RolloutPlanner.step(rollout("r", "2", eventId), w, Ledger.empty(), at(1));
    assertThat(s.releases()).hasSize(1);
    w.unaccepted(
        "vm-a",
        "rejected",
        "resources-changed: " + eventId + " now lists web-9",
        "resources-changed");
    return s;
  }

  /** The Maintenance API's outcome for db-1 halts the rollout as an agent's rejection does. */
  @Test
  void anAcknowledgementThatFailedHaltsTheRollout() {
    TestWorld w =
        new TestWorld()
            .vm("vm-b", "2")
            .placedVm("db-1", "2")
            .event("E0", "db-1")
            .azure("E0", AzureEventStatus.SCHEDULED)
            .armId("E0", ARM)
            .acknowledging()
            .unaccepted("name:db-1", "failed", "forbidden: no role");
    Rollout r = RolloutPlanner.step(rollout("r", "1", "E0"), w, Ledger.empty(), at(1)).rollout();
    r = RolloutPlanner.step(r, w, Ledger.empty(), at(2)).rollout();
    assertThat(r.state()).isEqualTo(Rollout.HALTED);
    assertThat(r.halt().reason()).contains("approval failed on db-1").contains("no role");
  }

  /**
   * The acknowledger refuses an order whose event its view shows listing a VM the request did not
   * count (rejected, resources-changed, nothing sent to Azure): the rollout does not halt, db-1
   * goes back to pending, and the event is released again under a new request, as after an agent's
   * refusal.
   */
  @Test
  void anAcknowledgementRefusedAsResourcesChangedIsReleasedAgain() {
    for (boolean reportsSince : List.of(false, true)) {
      releasedAgainAfterTheAcknowledgersRefusal(reportsSince);
    }
  }

  /**
   * (With {@code reportsSince}, db-1's agent begins to report the event after the refusal: the
   * refusal stays under its name, and was not read once the views had its vmId in the event.)
   */
  private static void releasedAgainAfterTheAcknowledgersRefusal(boolean reportsSince) {
    TestWorld w =
        new TestWorld()
            .vm("vm-b", "2")
            .placedVm("db-1", "2")
            .event("E0", "db-1")
            .azure("E0", AzureEventStatus.SCHEDULED)
            .armId("E0", ARM)
            .acknowledging();
    RolloutPlanner.Step first =
        RolloutPlanner.step(rollout("r", "1", "E0"), w, Ledger.empty(), at(1));
    assertThat(first.releases())
        .singleElement()
        .satisfies(x -> assertThat(x.acknowledge()).containsExactly("db-1"));
    w.unaccepted(
        "name:db-1",
        "rejected",
        "resources-changed: not sent: event E0 lists db-9",
        "resources-changed");
    if (reportsSince) {
      w.vm("db-1", "2").report("E0", "db-1", "scheduled", at(1));
    }
    Rollout r = first.rollout();
    List<RolloutPlanner.Release> again = new java.util.ArrayList<>();
    for (int t = 2; t < 5 && again.isEmpty(); t++) {
      RolloutPlanner.Step s = RolloutPlanner.step(r, w, Ledger.empty(), at(t));
      r = s.rollout();
      again.addAll(s.releases());
    }
    assertThat(r.halt()).isNull();
    assertThat(again)
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.requestId()).isNotEqualTo(first.releases().get(0).requestId());
            });
    assertThat(r.vms().get(RolloutVm.key("db-1", "E0")).again())
        .as("reports since: %s", reportsSince)
        .isEqualTo(1);
  }

  /**
   * Without acknowledging (or without the event's ARM id), nothing can release an event only VMs
   * without an agent have: it waits, and halts the rollout naming them after reportGrace.
   */
  @Test
  void withoutAcknowledgingSuchAnEventWaitsAndHaltsNamingWhy() {
    for (TestWorld w :
        List.of(world().placedVm("db-1", "2").armId("E0", ARM), world().placedVm("db-1", "2"))) {
      if (w.scheduledEventResource("E0") == null) {
        w.acknowledging();
      }
      Rollout r = rollout("r", "1", "E0");
      RolloutPlanner.Step s = RolloutPlanner.step(r, w, Ledger.empty(), at(1));
      assertThat(s.releases()).isEmpty();
      assertThat(s.rollout().vms().get(RolloutVm.key("db-1", "E0")).phase())
          .isEqualTo(RolloutVm.PENDING);
      s = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(31));
      assertThat(s.releases()).isEmpty();
      assertThat(s.rollout().state()).isEqualTo(Rollout.HALTED);
      assertThat(s.rollout().halt().reason())
          .contains("lists only VMs without a report of it")
          .contains("db-1")
          .contains("fleet.acknowledge.enabled");
    }
  }

  /**
   * An event listing a VM with an agent and a placed one: the agent's command releases it for both
   * (IMDS), so it goes out with or without acknowledging; both count in their groups.
   */
  @Test
  void anEventWithAnAgentAndAPlacedVmIsReleasedThroughTheAgent() {
    TestWorld w =
        world()
            .placedVm("db-2", "1")
            .event("E3", "vm-c", "db-2")
            .report("E3", "vm-c", "scheduled", T0);
    Ledger l = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "1", "E3"), w, l, at(1));
    assertThat(s.releases()).hasSize(1);
    assertThat(s.releases().get(0).vmIds()).containsExactly("vm-c");
    assertThat(s.releases().get(0).acknowledge()).as("not acknowledging").isEmpty();
    assertThat(s.releases().get(0).placed()).containsExactly("db-2");
    assertThat(l.entries()).containsKeys("vm-c|e3", "db-2|e3");
    assertThat(l.entries().get("db-2|e3").group(List.of("zone"))).isEqualTo("zone=1");
  }
}
