package dev.sebridge.fleet.rollout;

import static dev.sebridge.fleet.rollout.FleetLedgerTest.T0;
import static dev.sebridge.fleet.rollout.FleetLedgerTest.at;
import static dev.sebridge.fleet.rollout.FleetLedgerTest.rollout;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.agentless.AzureEventStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A rollout step on views behind what an earlier, committed step saw: the rollouts task failed over
 * to an instance whose global views are behind. What the committed step knew stands: the recorded
 * limit of a group, and the VMs of an event the rollout took in.
 */
class StaleViewsTest {
  /** These VMs (vm-N) of zone 1, each with its own event (EN) reported Scheduled. */
  private static TestWorld zone(int... vms) {
    TestWorld w = new TestWorld();
    for (int i : vms) {
      w.vm("vm-" + i, "1").event("E" + i, "vm-" + i).report("E" + i, "vm-" + i, "scheduled", T0);
    }
    return w;
  }

  /**
   * 50% of six is three, of five two. A step on views where the group has five records two; a step
   * after it on views further behind, where it still has six, keeps two. Until 2026-11-29 the limit
   * was recorded when the group was first met and never lowered: the stale views' three stood again
   * (FleetSafetyTest drew a seed of it in CI).
   */
  @Test
  void viewsFurtherBehindDoNotRaiseARecordedLimit() {
    Rollout r = rollout("r", "50%", "E4", "E5", "E6");
    TestWorld six = zone(1, 2, 3, 4, 5, 6);
    // Three VMs of the zone down already (another path's releases): no room, nothing released.
    Ledger full = Ledger.empty();
    for (int i = 1; i <= 3; i++) {
      full.release("E" + i, six, "api", at(0));
    }
    full.constrain(r);
    RolloutPlanner.Step first = RolloutPlanner.step(r, six, full, at(1));
    assertThat(first.releases()).isEmpty();
    assertThat(first.rollout().groupLimits()).containsEntry("zone=1", 3);

    // vm-1 deleted (scaled in): five.
    RolloutPlanner.Step shrunk =
        RolloutPlanner.step(first.rollout(), zone(2, 3, 4, 5, 6), full, at(2));
    assertThat(shrunk.releases()).isEmpty();
    assertThat(shrunk.rollout().groupLimits())
        .as("the group shrank to five: 50% is two")
        .containsEntry("zone=1", 2);

    // The other instance, its views from before the deletion; the three are back.
    Ledger back = Ledger.empty();
    back.constrain(shrunk.rollout());
    RolloutPlanner.Step stale = RolloutPlanner.step(shrunk.rollout(), six, back, at(3));
    assertThat(stale.rollout().groupLimits())
        .as("views behind the deletion: still two")
        .containsEntry("zone=1", 2);
    assertThat(stale.releases()).as("two at once, not three").hasSize(2);
  }

  /**
   * Rollout r holds vm-1's event in zone 1 and has no VM in zone 2, but its limit (50%) binds every
   * release there. Views where zone 2 has five VMs (one deleted) make it two: an operator's
   * approvals take two down, and the third is refused. The limit the check met is recorded, so
   * after a failover to views from before the deletion (six: three) the third is still refused.
   * Until 2026-11-29 only the limits of groups the rollout had VMs in were recorded: the stale
   * views' three stood, and three of zone 2's five VMs went down under a limit of two.
   */
  @Test
  void aLimitACheckMetInAGroupWithoutRolloutVmsIsRecorded() {
    Rollout r = rollout("r", "50%", "E1");
    TestWorld six = zone(1);
    TestWorld five = zone(1);
    for (int i = 21; i <= 26; i++) {
      six.vm("vm-" + i, "2").event("E" + i, "vm-" + i).report("E" + i, "vm-" + i, "scheduled", T0);
      if (i < 26) {
        five.vm("vm-" + i, "2")
            .event("E" + i, "vm-" + i)
            .report("E" + i, "vm-" + i, "scheduled", T0);
      }
    }
    Ledger fresh = Ledger.empty();
    fresh.constrain(r);
    for (String e : List.of("E21", "E22")) {
      assertThat(fresh.refusal(e, five, at(1))).isEmpty();
      fresh.release(e, five, "api", at(1));
    }
    assertThat(fresh.refusal("E23", five, at(1)))
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2").contains("(2)"));
    Rollout recorded = fresh.recorded(r);
    assertThat(recorded.groupLimits()).containsEntry("zone=2", 2);
    assertThat(fresh.recorded(recorded)).as("nothing more to record").isSameAs(recorded);

    // The rollouts task moves to an instance whose views are from before the deletion.
    Ledger stale = new Ledger(fresh.entries());
    stale.observe(six, at(2));
    stale.constrain(recorded);
    assertThat(stale.refusal("E23", six, at(2)))
        .as("zone 2's recorded limit of two stands")
        .hasValueSatisfying(why -> assertThat(why).contains("(2)"));
    assertThat(stale.recorded(recorded).groupLimits())
        .as("the stale views' three does not raise it")
        .containsEntry("zone=2", 2);
  }

  /**
   * Event E lists X (zone 1) and Z (zone 2); the rollout took both in on views that showed it so.
   * After a failover, the views show E listing X only (Z's report, and Azure's word that E grew,
   * not applied yet), but Azure releases E for Z too: Z is acknowledged through the Maintenance
   * API, and IMDS releases an approved event for every VM it lists. Z is counted in zone 2 with the
   * release, so W's event, the only other one of zone 2 (limit 1), stays. Until 2026-11-29 only the
   * VMs the views listed were counted: W went too, two VMs of zone 2 down against a limit of one.
   */
  @Test
  void aRolloutVmTheStaleViewsDoNotListInItsEventIsCountedWithTheRelease() {
    String arm =
        "/subscriptions/s1/resourceGroups/main/providers/Microsoft.Compute/virtualMachines/X"
            + "/providers/Microsoft.Maintenance/scheduledevents/E";
    TestWorld fresh =
        new TestWorld()
            .vm("X", "1")
            .vm("Z", "2")
            .vm("W", "2")
            .vm("B1", "1")
            .vm("B2", "2")
            .event("E", "X", "Z")
            .report("E", "X", "scheduled", T0)
            .report("E", "Z", "scheduled", T0)
            .event("E2", "W")
            .report("E2", "W", "scheduled", T0)
            .event("EB1", "B1")
            .report("EB1", "B1", "scheduled", T0)
            .event("EB2", "B2")
            .report("EB2", "B2", "scheduled", T0);
    Rollout r = rollout("r", "1", "E", "E2");
    // B1 and B2 down (other releases): the step takes X, Z and W in and releases nothing.
    Ledger blocked = Ledger.empty();
    blocked.release("EB1", fresh, "api", at(0));
    blocked.release("EB2", fresh, "api", at(0));
    blocked.constrain(r);
    RolloutPlanner.Step joined = RolloutPlanner.step(r, fresh, blocked, at(1));
    assertThat(joined.releases()).isEmpty();
    assertThat(joined.rollout().vms().values())
        .extracting(RolloutVm::vmId)
        .containsExactlyInAnyOrder("X", "Z", "W");

    // The other instance: its views show E listing X only; B1 and B2 are back.
    TestWorld behind =
        new TestWorld()
            .acknowledging()
            .vm("X", "1")
            .vm("Z", "2")
            .heartbeat("Z", T0) // its agent is heard from: it is placed by its view
            .vm("W", "2")
            .event("E", "X")
            .report("E", "X", "scheduled", T0)
            .armId("E", arm)
            .azure("E", AzureEventStatus.SCHEDULED)
            .event("E2", "W")
            .report("E2", "W", "scheduled", T0);
    Ledger l = Ledger.empty();
    l.constrain(joined.rollout());
    RolloutPlanner.Step step = RolloutPlanner.step(joined.rollout(), behind, l, at(2));

    assertThat(step.releases()).extracting(RolloutPlanner.Release::eventId).containsExactly("E");
    RolloutPlanner.Release e = step.releases().get(0);
    assertThat(e.acknowledge()).as("Z, through the Maintenance API").containsExactly("Z");
    assertThat(e.counted()).as("the commands' claim names Z too").contains("X", "Z");
    assertThat(l.unavailable(java.time.Duration.ZERO, at(2))).contains("X", "Z");
    assertThat(l.refusal("E2", behind, at(2)))
        .as("zone 2 is full: Z is down")
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
    assertThat(List.copyOf(l.entries().keySet())).contains("Z|e");
    assertThat(l.entries().get("Z|e").placed()).as("its agent will say when it is back").isFalse();

    // Another rollout, r2, waits an hour after a VM is back; Y of zone 2 was back a minute ago.
    // For r (no settle) zone 2 has room, for r2 it is full: Z would be the second there. E stays.
    TestWorld settling =
        behind
            .vm("Y", "2")
            .event("EY", "Y")
            .report("EY", "Y", "completed", at(10))
            .heartbeat("Y", at(20));
    Rollout r2 =
        RolloutActions.apply(
            null,
            new RolloutCommand(
                "r2",
                RolloutCommand.CREATE,
                new RolloutSpec(
                    List.of("EY"),
                    "1",
                    List.of("zone"),
                    java.time.Duration.ofHours(1),
                    java.time.Duration.ofMinutes(5),
                    java.time.Duration.ofSeconds(30)),
                null,
                null,
                "t",
                "alice",
                T0,
                "api"),
            T0);
    Ledger inSettle = Ledger.empty();
    inSettle.release("EY", settling, "api", at(0));
    inSettle.observe(settling, at(60));
    inSettle.constrain(joined.rollout());
    inSettle.constrain(r2);
    assertThat(RolloutPlanner.step(joined.rollout(), settling, inSettle, at(60)).releases())
        .as("E would take Z down beside Y, within r2's settle")
        .isEmpty();
    // Views that do not hold Z at all (too new for them) cannot place it: E waits for them.
    TestWorld withoutZ =
        new TestWorld()
            .acknowledging()
            .vm("X", "1")
            .vm("W", "2")
            .event("E", "X")
            .report("E", "X", "scheduled", T0)
            .armId("E", arm)
            .azure("E", AzureEventStatus.SCHEDULED)
            .event("E2", "W")
            .report("E2", "W", "scheduled", T0);
    Ledger unplaced = Ledger.empty();
    unplaced.constrain(joined.rollout());
    assertThat(RolloutPlanner.step(joined.rollout(), withoutZ, unplaced, at(2)).releases())
        .extracting(RolloutPlanner.Release::eventId)
        .as("E waits until the views can place Z; W's event is free to go")
        .containsExactly("E2");
    // It waits for them as for a VM that has not reported the event: past reportGrace, a halt
    // names Z (before, it waited without a word, until NotBefore if the views never placed it).
    Rollout waited = RolloutPlanner.step(joined.rollout(), withoutZ, unplaced, at(2)).rollout();
    Ledger later = Ledger.empty();
    later.constrain(waited);
    Rollout halted = RolloutPlanner.step(waited, withoutZ, later, at(2 + 31)).rollout();
    assertThat(halted.halt()).isNotNull();
    assertThat(halted.halt().eventId()).isEqualTo("E");
    assertThat(halted.halt().reason()).contains("Z");
  }

  /**
   * X, down for its event, is moved from zone 1 to zone 2; a step's views see it there. After a
   * failover to views from before the move, X still counts in zone 2 (limit 1), so W's event stays.
   * Until 2026-11-29 an entry counted where it was released and where the step's views put it now:
   * the stale views put it in zone 1 only, and W went too.
   */
  @Test
  void aVmAStepSawMovedWhileDownCountsWhereItWasSeenAfterAFailover() {
    TestWorld before =
        new TestWorld()
            .vm("X", "1")
            .vm("W", "2")
            .event("EX", "X")
            .report("EX", "X", "scheduled", T0)
            .event("EW", "W")
            .report("EW", "W", "scheduled", T0);
    TestWorld moved =
        new TestWorld()
            .vm("X", "2")
            .vm("W", "2")
            .event("EX", "X")
            .report("EX", "X", "started", T0)
            .event("EW", "W")
            .report("EW", "W", "scheduled", T0);
    Rollout r = rollout("r", "1", "EW");
    Ledger first = Ledger.empty();
    first.release("EX", before, "api", at(0)); // X down, entered in zone 1
    first.observe(moved, at(1)); // a step whose views show it moved to zone 2
    assertThat(first.entries().get("X|ex").groups(List.of("zone")))
        .containsExactly("zone=1", "zone=2");

    // The rollouts task moves to an instance whose views are from before the move.
    Ledger after = new Ledger(first.entries());
    after.observe(before, at(2));
    after.constrain(r);
    RolloutPlanner.Step step = RolloutPlanner.step(r, before, after, at(2));
    assertThat(step.releases()).as("zone 2 has X down").isEmpty();
    assertThat(after.refusal("EW", before, at(2)))
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
  }

  /**
   * The places an entry keeps: another spelling of one it has is no new place; an entry released
   * again (an operator's approval the views did not show) keeps the places its earlier entry was
   * seen in; one seen in more places than it keeps counts in every group; and all of it reads back
   * from the store's JSON.
   */
  @Test
  void anEntryKeepsItsPlacesAcrossSpellingsReleasesAgainAndTheStore() throws Exception {
    TestWorld zone1 =
        new TestWorld().vm("X", "1").event("EX", "X").report("EX", "X", "scheduled", T0);
    TestWorld zone2 =
        new TestWorld().vm("X", "2").event("EX", "X").report("EX", "X", "scheduled", T0);
    Ledger l = Ledger.empty();
    l.release("EX", zone1, "api", at(0));
    l.observe(zone2, at(1));
    LedgerEntry e = l.entries().get("X|ex");
    assertThat(e.seenIn()).containsExactly(java.util.Map.of("zone", "2"));
    assertThat(e.seen(java.util.Map.of("zone", " 2 ".strip()))).isSameAs(e);

    // Released again on views from before the move: still counted in zone 2.
    l.releaseAgain("EX", List.of(new ListedVms.Listed("X", "X")), zone1, "api", at(2));
    assertThat(l.entries().get("X|ex").groups(List.of("zone"))).contains("zone=1", "zone=2");

    // Seen in more places than it keeps: in every group.
    LedgerEntry many = e;
    for (int z = 3; z <= 3 + LedgerEntry.PLACES_KEPT; z++) {
      many = many.seen(java.util.Map.of("zone", Integer.toString(z)));
    }
    assertThat(many.seenIn()).hasSize(LedgerEntry.PLACES_KEPT + 1);
    assertThat(many.groups(List.of("zone"))).contains(Ledger.UNKNOWN_GROUP);

    var serde = new dev.sebridge.fleet.streams.JsonSerde<>(LedgerEntry.class);
    LedgerEntry back =
        serde.deserializer().deserialize("t", serde.serializer().serialize("t", many));
    assertThat(back).isEqualTo(many);
    LedgerEntry old =
        serde
            .deserializer()
            .deserialize(
                "t",
                ("{\"vmId\":\"X\",\"eventId\":\"EX\",\"attributes\":{\"zone\":\"1\"},"
                        + "\"releasedAt\":\"2026-11-25T10:00:00Z\"}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(old.seenIn()).as("an entry written before 2026-11-29").isEmpty();
  }

  /**
   * A rollout VM without an agent (the inventory placed it when the rollout took it in) that the
   * stale views do not list in its event is entered as placed: back as a VM known by name is, not
   * waiting for a heartbeat that never comes.
   */
  @Test
  void anUnlistedVmWithoutAnAgentIsEnteredAsPlaced() {
    TestWorld fresh =
        new TestWorld()
            .vm("X", "1")
            .placedVm("db-1", "2")
            .vm("B1", "1")
            .vm("B2", "2")
            .event("E", "X", "db-1")
            .report("E", "X", "scheduled", T0)
            .event("EB1", "B1")
            .report("EB1", "B1", "scheduled", T0)
            .event("EB2", "B2")
            .report("EB2", "B2", "scheduled", T0);
    Rollout r = rollout("r", "1", "E");
    Ledger blocked = Ledger.empty();
    blocked.release("EB1", fresh, "api", at(0));
    blocked.release("EB2", fresh, "api", at(0));
    blocked.constrain(r);
    RolloutPlanner.Step joined = RolloutPlanner.step(r, fresh, blocked, at(1));
    assertThat(joined.releases()).isEmpty();
    assertThat(joined.rollout().vms().values()).extracting(RolloutVm::vmId).contains("X", "db-1");

    TestWorld behind =
        new TestWorld()
            .acknowledging()
            .vm("X", "1")
            .inventoryZone("db-1", "2")
            .event("E", "X")
            .report("E", "X", "scheduled", T0)
            .armId(
                "E",
                "/subscriptions/s1/resourceGroups/main/providers/Microsoft.Compute/virtualMachines"
                    + "/X/providers/Microsoft.Maintenance/scheduledevents/E")
            .azure("E", AzureEventStatus.SCHEDULED);
    Ledger l = Ledger.empty();
    l.constrain(joined.rollout());
    RolloutPlanner.Step step = RolloutPlanner.step(joined.rollout(), behind, l, at(2));
    assertThat(step.releases()).extracting(RolloutPlanner.Release::eventId).containsExactly("E");
    assertThat(l.entries().get("db-1|e").placed()).as("back as a VM known by name is").isTrue();
  }
}
