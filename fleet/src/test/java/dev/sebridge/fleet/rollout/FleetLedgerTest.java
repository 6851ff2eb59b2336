package dev.sebridge.fleet.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ledger's rules, one scenario each: the ways the rollout promise was broken before it existed
 * (issue "Rollout safety as a fleet-wide guarantee", items 1 to 5), and its retention.
 */
class FleetLedgerTest {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");
  static final List<String> BY_ZONE = List.of("zone");

  static Rollout rollout(String id, String max, String... events) {
    RolloutSpec spec =
        new RolloutSpec(
            List.of(events),
            max,
            BY_ZONE,
            Duration.ZERO,
            Duration.ofMinutes(5),
            Duration.ofSeconds(30));
    return RolloutActions.apply(
        null,
        new RolloutCommand(id, RolloutCommand.CREATE, spec, null, null, "t", "alice", T0, "api"),
        T0);
  }

  static RolloutCommand command(Rollout r, String action, String vmId, String eventId) {
    return new RolloutCommand(r.id(), action, null, vmId, eventId, "op", "bob", T0, null);
  }

  static Instant at(int seconds) {
    return T0.plusSeconds(seconds);
  }

  /** web_0 in zone 1 and web_1 in zone 2, each with an event (A, B) it reported. */
  private static TestWorld twoZonesTwoEvents() {
    return new TestWorld()
        .vm("web_0", "1")
        .vm("web_1", "2")
        .event("A", "web_0")
        .event("B", "web_1")
        .report("A", "web_0", "scheduled", T0)
        .report("B", "web_1", "scheduled", T0);
  }

  /**
   * A VM down whose group the inventory now lists elsewhere counts there too: a VM down sends
   * nothing, so its view keeps the group of its agent's last envelope, while the inventory's
   * refresh already lists it elsewhere.
   */
  @Test
  void aVmDownThatTheInventoryNowPutsInAnotherGroupCountsThereToo() {
    TestWorld w = twoZonesTwoEvents();
    Ledger ledger = Ledger.empty();
    ledger.release("A", w, "api", at(1));
    w.inventoryZone("web_0", "2");
    ledger.observe(w, at(2));
    ledger.constrain(rollout("r", "1", "B"));
    assertThat(ledger.refusal("B", w, at(2)))
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
  }

  /**
   * A VM down whose group the views now show elsewhere (moved to another resource group while down;
   * here its zone as the fleet knows it changed) counts in the group it is in now as well as the
   * one it was released in: that group has no room for another. Before, it counted only where it
   * was released, and the group it joined took one more than its limit.
   */
  @Test
  void aVmDownThatTheViewsNowPutInAnotherGroupCountsThereToo() {
    TestWorld w = twoZonesTwoEvents();
    Ledger ledger = Ledger.empty();
    ledger.release("A", w, "api", at(1));
    w.vm("web_0", "2");
    ledger.observe(w, at(2));
    Rollout r = rollout("r", "1", "B");
    ledger.constrain(r);
    assertThat(ledger.refusal("B", w, at(2)))
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, at(2));
    assertThat(s.releases()).as("zone 2 has web_0 down already").isEmpty();
  }

  /**
   * Azure spells one resource group or scale set in several cases (Compute often in upper case,
   * Resource Graph in lower case, an old and a new instance of one scale set each its own way): a
   * group is one group whatever the case of its name. Before, web_0 in "Zone-A" and web_1 in
   * "zone-a" made two groups of one VM, each with a limit of one, and a rollout of at most one VM
   * down released both at once.
   */
  @Test
  void aGroupSpeltInTwoCasesIsOneGroup() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "Zone-A")
            .vm("web_1", "zone-a")
            .event("A", "web_0")
            .event("B", "web_1")
            .report("A", "web_0", "scheduled", T0)
            .report("B", "web_1", "scheduled", T0);
    Rollout r = rollout("r", "1", "A", "B");
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, Ledger.empty(), at(1));
    assertThat(s.releases()).as("one group of two VMs, at most one down").hasSize(1);
    assertThat(s.rollout().groupLimits()).containsOnlyKeys("zone=zone-a");
    assertThat(s.rollout().vms().values()).extracting(RolloutVm::group).containsOnly("zone=zone-a");
  }

  /**
   * An event that reaches its NotBefore (one nobody approved, or one a rollout holds) is started by
   * Azure for every VM it lists, and a VM it reboots says nothing until it is up again (its agent
   * reports Started, or the event gone, minutes later): it counts from NotBefore. Before, web_1
   * still showed Scheduled while it rebooted, and once web_0 was back the rollout released web_2
   * beside it in zone 1.
   */
  @Test
  void anEventPastItsNotBeforeCountsAsReleased() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .vm("web_2", "1")
            .event("A", "web_0")
            .event("B", "web_1")
            .event("C", "web_2")
            .report("A", "web_0", "scheduled", T0)
            .report("B", "web_1", "scheduled", T0)
            .report("C", "web_2", "scheduled", T0)
            .notBefore("A", at(30))
            .notBefore("B", at(60));
    Ledger ledger = Ledger.empty();
    Rollout r = rollout("r", "1", "A", "C"); // B is another team's: nobody approves it
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, at(1));
    assertThat(s.releases()).extracting(RolloutPlanner.Release::eventId).containsExactly("A");
    // A done and web_0 back; B's NotBefore passed, web_1 rebooting and still reported Scheduled
    w.report("A", "web_0", "completed", at(50)).heartbeat("web_0", at(55));
    Ledger next = ledger.copy();
    next.observe(w, at(61));
    s = RolloutPlanner.step(s.rollout(), w, next, at(61));
    assertThat(s.releases()).as("web_1 is down since B's NotBefore: no room for web_2").isEmpty();
    assertThat(next.unavailable(Duration.ZERO, at(61))).containsExactly("web_1");
    // Before its NotBefore, B counted for nothing
    Ledger before = ledger.copy();
    before.observe(w, at(59));
    assertThat(before.unavailable(Duration.ZERO, at(59))).isEmpty();
  }

  /**
   * Two VMs without an agent of one name (two resource groups, one name), each in an event past its
   * NotBefore: nothing tells the fleet they are one VM, so they count as two, each in every group.
   * Counted as one (by name alone), zone 1 showed one fewer down than it had, and a rollout at its
   * limit released one more.
   */
  @Test
  void namesakesWithoutAnAgentInTwoEventsCountAsTwoVms() {
    TestWorld w =
        new TestWorld()
            .vm("app_1", "1")
            .vm("db_1", "1")
            .vm("c_1", "1")
            .vm("c_2", "1")
            .vm("c_3", "1")
            .event("E1", "app_1", "web_0")
            .event("E2", "db_1", "web_0")
            .event("X", "c_1")
            .report("E1", "app_1", "scheduled", T0)
            .report("E2", "db_1", "scheduled", T0)
            .report("X", "c_1", "scheduled", T0)
            .notBefore("E1", at(10))
            .notBefore("E2", at(10));
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(11));
    ledger.constrain(rollout("r", "4", "X"));
    // Zone 1 has app_1 and db_1 down, and one web_0 or two, each anywhere: with two, X's c_1 is a
    // fifth.
    assertThat(ledger.refusal("X", w, at(11))).isPresent();
  }

  /**
   * Azure's central word on another team's event in the subscription (a VM of no rollout, no agent
   * of the fleet reported it) that passes its NotBefore counts for nothing, as its start does:
   * counted by name, it would hold every group of every active rollout.
   */
  @Test
  void anEventOnlyAzureReportsForAVmOutsideTheFleetCountsForNothingPastItsNotBefore() {
    TestWorld w =
        twoZonesTwoEvents()
            .event("X", "someone-elses-vm")
            .azure("X", dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED)
            .notBefore("X", at(10));
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(11));
    assertThat(ledger.entries()).isEmpty();
    ledger.constrain(rollout("r", "1", "A", "B"));
    assertThat(ledger.refusal("A", w, at(11))).isEmpty();
  }

  /**
   * A Terminate (a scale-in, its notification never approved) or a Preempt that passes its
   * NotBefore takes its VM down and then out of the fleet: it counts until the VM leaves its
   * group's size (its agent silent, or the inventory's next refresh), and not for the ledger's 30
   * days after (a VM that never sends a heartbeat again). Before, it was not entered at all: a Spot
   * VM evicted and deallocated stayed in its group's size, down, counted nowhere.
   */
  @Test
  void aTerminateOrPreemptPastItsNotBeforeCountsUntilItsVmLeavesItsGroup() {
    for (String type : List.of("Terminate", "Preempt")) {
      // A Spot VM evicted (deallocated, the default) says nothing more: down, and in its group's
      // size until its agent is silent.
      TestWorld w = twoZonesTwoEvents().type("A", type).notBefore("A", at(10));
      Ledger ledger = Ledger.empty();
      ledger.observe(w, at(11));
      assertThat(ledger.unavailable(Duration.ZERO, at(11))).as(type).containsExactly("web_0");
      w.silent("web_0");
      ledger.observe(w, at(30));
      assertThat(ledger.unavailable(Duration.ZERO, at(30))).as(type).isEmpty();
      // A VM the inventory no longer lists (deleted) leaves its group's size at once, too.
      TestWorld deleted = twoZonesTwoEvents().type("A", type).notBefore("A", at(10));
      Ledger l2 = Ledger.empty();
      l2.observe(deleted, at(11));
      deleted.dropped("web_0");
      l2.observe(deleted, at(12));
      assertThat(l2.unavailable(Duration.ZERO, at(12))).as(type).isEmpty();
    }
  }

  /** Approved, too: a Terminate's VM is never heard from again, and holds nothing once silent. */
  @Test
  void anApprovedTerminateCountsUntilItsVmIsSilent() {
    TestWorld w = twoZonesTwoEvents().type("A", "Terminate");
    Ledger ledger = Ledger.empty();
    ledger.release("A", w, "api", at(1));
    ledger.observe(w, at(2));
    assertThat(ledger.unavailable(Duration.ZERO, at(2))).containsExactly("web_0");
    w.silent("web_0");
    ledger.observe(w, at(20));
    assertThat(ledger.unavailable(Duration.ZERO, at(20))).isEmpty();
    // Heard from again while its Terminate is open (the inventory missed it once, its agent was
    // slow): the Terminate has not run, and it counts again.
    w.heard("web_0");
    ledger.observe(w, at(21));
    assertThat(ledger.unavailable(Duration.ZERO, at(21))).containsExactly("web_0");
    // Its part over and heard from after (a Spot VM restarted after its eviction) while the
    // event is open for another VM: back, and stays back, not reopened each step.
    TestWorld p =
        twoZonesTwoEvents()
            .type("A", "Preempt")
            .event("A", "web_0", "web_1")
            .report("A", "web_1", "scheduled", T0);
    Ledger l3 = Ledger.empty();
    l3.release("A", p, "api", at(1));
    p.silent("web_0");
    l3.observe(p, at(20));
    p.heard("web_0").report("A", "web_0", "completed", at(30)).heartbeat("web_0", at(40));
    l3.observe(p, at(41));
    assertThat(l3.unavailable(Duration.ZERO, at(41))).containsExactly("web_1");
    Instant backAt = l3.entries().get("web_0|a").backAt();
    l3.observe(p, at(42));
    assertThat(l3.entries().get("web_0|a").backAt()).isEqualTo(backAt);
    // A Reboot's VM silent is still down: it counts until heard from after its event.
    TestWorld r = twoZonesTwoEvents();
    Ledger l2 = Ledger.empty();
    l2.release("A", r, "api", at(1));
    r.silent("web_0");
    l2.observe(r, at(20));
    assertThat(l2.unavailable(Duration.ZERO, at(20))).containsExactly("web_0");
  }

  /**
   * An approved Terminate whose VM is gone is not entered again once its event is over (its part
   * vanishes a week after) and its entry dropped: its commands went out, but the deleted VM,
   * unknown, was entered by name, in every group of every rollout, for an hour.
   */
  @Test
  void anApprovedTerminateIsNotEnteredAgainOnceItIsOver() {
    TestWorld w = twoZonesTwoEvents().type("A", "Terminate").requested("A");
    Ledger ledger = Ledger.empty();
    ledger.release("A", w, "api", at(1));
    w.dropped("web_0");
    ledger.observe(w, at(2));
    w.vanished("A", "web_0", at(7 * 24 * 3600));
    Instant later = at(8 * 24 * 3600);
    ledger.observe(w, later);
    ledger.observe(w, later.plusSeconds(1));
    assertThat(ledger.unavailable(Duration.ZERO, later.plusSeconds(1))).isEmpty();
    assertThat(ledger.entries().keySet()).noneMatch(k -> k.startsWith("name:"));
    // Nor when Azure's central word says it completed (central events, no inventory).
    w.azure("A", dev.sebridge.fleet.agentless.AzureEventStatus.COMPLETED);
    ledger.observe(w, later.plusSeconds(2));
    assertThat(ledger.entries().keySet()).noneMatch(k -> k.startsWith("name:"));
  }

  /**
   * A VM without an agent that a Terminate lists, placed by the inventory, is back once the
   * inventory no longer lists it (deleted); a Spot VM deallocated is still listed, and counts.
   */
  @Test
  void aPlacedVmATerminateDeletedIsBackOnceTheInventoryDropsIt() {
    TestWorld w =
        new TestWorld()
            .placedVm("db-1", "2")
            .inventoryZone("db-1", "2")
            .event("T", "db-1")
            .type("T", "Terminate")
            .azure("T", dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED);
    Ledger ledger = Ledger.empty();
    ledger.release("T", w, "api", at(10)); // acknowledged through the Maintenance API
    ledger.observe(w, at(11));
    assertThat(ledger.unavailable(Duration.ZERO, at(11))).containsExactly("db-1");
    w.unlisted("db-1");
    ledger.observe(w, at(12));
    assertThat(ledger.unavailable(Duration.ZERO, at(12))).isEmpty();
    // A refresh that missed it once: listed again while the event is open and within its hour,
    // it counts again, and then as any VM without an agent (back an hour after its release, and
    // stays back: no step reopens it and closes it again).
    w.inventoryZone("db-1", "2");
    ledger.observe(w, at(13));
    assertThat(ledger.unavailable(Duration.ZERO, at(13))).containsExactly("db-1");
    ledger.observe(w, at(10 + 3600));
    assertThat(ledger.unavailable(Duration.ZERO, at(10 + 3600))).isEmpty();
    Instant backAt = ledger.entries().get("db-1|t").backAt();
    ledger.observe(w, at(10 + 3601));
    assertThat(ledger.entries().get("db-1|t").backAt()).isEqualTo(backAt);
  }

  /**
   * An event only a VM the inventory no longer lists reported (dropped by a refresh that missed it,
   * or deleted a moment ago) that passes its NotBefore still counts, by name: Azure reboots it all
   * the same. The first version of the rule asked for a known VM's report and left it out.
   */
  @Test
  void anEventPastItsNotBeforeThatOnlyAnUnlistedVmReportedCounts() {
    TestWorld w =
        new TestWorld()
            .event("U", "web-9")
            .unknownReport("U", "vm-9", "web-9", "scheduled", T0)
            .notBefore("U", at(10));
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(11));
    assertThat(ledger.unavailable(Duration.ZERO, at(11))).containsExactly("name:web-9");
  }

  /**
   * A VM released by its vmId that the inventory then drops (a scale-in after the wave) is the same
   * VM and release: counted by its entry until it is back, not again by name in every group of
   * every rollout for an hour.
   */
  @Test
  void aVmDroppedAfterItsReleaseIsNotEnteredAgainByName() {
    TestWorld w = twoZonesTwoEvents();
    Ledger ledger = Ledger.empty();
    ledger.release("A", w, "api", at(1));
    w.dropped("web_0");
    ledger.observe(w, at(2));
    assertThat(ledger.entries().keySet()).containsExactly("web_0|a");
  }

  /**
   * A VM without a zone is in one group whether its zone came blank or not at all (Resource Graph
   * gives none for a VM outside zones, IMDS a blank one): before, "zone=" and "zone=-" were two
   * groups with a limit each.
   */
  @Test
  void aBlankAttributeAndAMissingOneAreOneGroup() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "")
            .vm("web_1", null)
            .event("A", "web_0")
            .event("B", "web_1")
            .report("A", "web_0", "scheduled", T0)
            .report("B", "web_1", "scheduled", T0);
    RolloutPlanner.Step s =
        RolloutPlanner.step(rollout("r", "1", "A", "B"), w, Ledger.empty(), at(1));
    assertThat(s.releases()).as("one group of two VMs, at most one down").hasSize(1);
    assertThat(s.rollout().groupLimits()).containsOnlyKeys("zone=-");
  }

  /**
   * A rollout recorded before groups were named in lower case reads as one group per group: its
   * VMs' groups in lower case, and one group spelt two ways is one limit, the smaller.
   */
  @Test
  void aRolloutRecordedWithGroupsInAnyCaseReadsInLowerCase() throws Exception {
    Rollout r = rollout("r", "1", "A");
    com.fasterxml.jackson.databind.node.ObjectNode json =
        dev.sebridge.fleet.streams.JsonSerde.JSON.valueToTree(r);
    json.putObject("groupLimits").put("zone=Zone-A", 3).put("zone=zone-a", 2).put("zone=B", 1);
    json.putObject("vms")
        .putPOJO("web_0|a", RolloutVm.pending("web_0", "web_0", "A", "zone=Zone-A"));
    Rollout read = dev.sebridge.fleet.streams.JsonSerde.JSON.treeToValue(json, Rollout.class);
    assertThat(read.groupLimits()).containsOnly(entry("zone=zone-a", 2), entry("zone=b", 1));
    assertThat(read.vms().get("web_0|a").group()).isEqualTo("zone=zone-a");
    assertThat(ListedVms.normalGroup("zone=1,scaleSet=Web-VMSS,resourceGroup=-"))
        .isEqualTo("zone=1,scaleSet=web-vmss,resourceGroup=-");
    assertThat(ListedVms.normalGroup("zone=,scaleSet= ")).isEqualTo("zone=-,scaleSet=-");
    assertThat(ListedVms.normalGroup("all")).isEqualTo("all");
    // folded as equalsIgnoreCase compares: one name, one group
    assertThat(ListedVms.normalGroup("resourceGroup=rg\u017f-\u0130"))
        .isEqualTo(ListedVms.normalGroup("resourceGroup=RGS-i"))
        .isEqualTo(
            ListedVms.group("vm", Map.of("resourceGroup", "Rgs-I"), List.of("resourceGroup")));
    String named = "zone=1,scaleSet=web";
    assertThat(ListedVms.normalGroup(named)).isSameAs(named);
    // named as group() names it, and named again the same: for any groupBy and any values
    java.util.Random rnd = new java.util.Random(29);
    String letters = "aZ- ,=\u017f\u0130\u00df";
    for (int i = 0; i < 2_000; i++) {
      Map<String, String> attributes = new java.util.HashMap<>();
      for (String a : List.of("zone", "scaleSet", "resourceGroup")) {
        StringBuilder v = new StringBuilder();
        for (int n = rnd.nextInt(4); n > 0; n--) {
          v.append(letters.charAt(rnd.nextInt(letters.length())));
        }
        attributes.put(a, rnd.nextInt(5) == 0 ? null : v.toString());
      }
      String g = ListedVms.group("vm", attributes, List.of("zone", "scaleSet", "resourceGroup"));
      String once = ListedVms.normalGroup(g);
      assertThat(ListedVms.normalGroup(once)).as("%s", g).isEqualTo(once);
      if (attributes.values().stream()
          .noneMatch(v -> v != null && (v.contains(",") || v.contains("=")))) {
        assertThat(once).as("%s", attributes).isEqualTo(g);
      }
    }
  }

  /**
   * web-2 has no agent; its event was released, so it counts by name. An unknown vmId reporting the
   * event completed (as web-2) does not make it over: web-2 counts until the ledger's hour.
   */
  @Test
  void anUnknownVmsCompletionDoesNotBringAVmKnownByNameBack() {
    TestWorld w = new TestWorld().event("E-2", "web-2");
    Ledger l = Ledger.empty();
    l.release("E-2", w, "api", at(0));
    assertThat(l.unavailable(java.time.Duration.ZERO, at(0))).containsExactly("name:web-2");
    w.unknownReport("E-2", "rogue", "web-2", "completed", at(5));
    l.observe(w, at(20 * 60));
    l.observe(w, at(40 * 60));
    assertThat(l.unavailable(java.time.Duration.ZERO, at(40 * 60)))
        .as("not back 10 minutes after an unknown VM said completed")
        .containsExactly("name:web-2");
    l.observe(w, at(61 * 60));
    assertThat(l.unavailable(java.time.Duration.ZERO, at(61 * 60))).isEmpty();
  }

  @Test
  void anEventIsHeldWhileAVmItListsHasNotReportedItAndHaltsNamingItAfterTheGrace() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .vm("web_2", "1")
            .vm("web_3", "1")
            .event("E", "web_0", "web_1")
            .report("E", "web_0", "scheduled", T0);
    Rollout r = rollout("r", "2", "E");
    Ledger ledger = Ledger.empty();

    RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, at(1));
    assertThat(s.releases()).as("web_1 has not reported E: IMDS would release it too").isEmpty();
    assertThat(s.rollout().state()).isEqualTo(Rollout.RUNNING);

    s = RolloutPlanner.step(s.rollout(), w, ledger, at(31));
    assertThat(s.releases()).isEmpty();
    assertThat(s.rollout().state()).isEqualTo(Rollout.HALTED);
    assertThat(s.rollout().halt().reason()).contains("web_1").contains("have not reported it");

    w.report("E", "web_1", "scheduled", at(40));
    Rollout resumed =
        RolloutActions.apply(
            s.rollout(), command(s.rollout(), RolloutCommand.RESUME, null, null), at(41));
    s = RolloutPlanner.step(resumed, w, ledger, at(42));
    assertThat(s.releases()).hasSize(1);
    assertThat(s.releases().get(0).vmIds()).containsExactlyInAnyOrder("web_0", "web_1");
  }

  /**
   * A VM's completion and its agent's first heartbeat after it reach the views within one tick: the
   * rollout counts it back at the same moment as the ledger that admits the next release (it used
   * to take one more tick, so the next VM of the zone was released, by the ledger's count, while
   * the rollout still showed the first one down: FleetFailoverTest saw the second POST 0.6 s before
   * the first VM's backAt).
   */
  @Test
  void aCompletionAndTheHeartbeatAfterItInOneTickAreBackForTheRolloutAndTheLedgerAlike() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .event("A", "web_0")
            .event("B", "web_1")
            .report("A", "web_0", "scheduled", T0)
            .report("B", "web_1", "scheduled", T0);
    RolloutSpec spec =
        new RolloutSpec(
            List.of("A", "B"),
            "1",
            BY_ZONE,
            Duration.ofSeconds(1),
            Duration.ofMinutes(5),
            Duration.ofSeconds(30));
    Rollout r =
        RolloutActions.apply(
            null,
            new RolloutCommand("r", RolloutCommand.CREATE, spec, null, null, "t", "a", T0, "api"),
            T0);
    Ledger ledger = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, at(1));
    assertThat(s.releases()).singleElement().satisfies(x -> assertThat(x.eventId()).isEqualTo("A"));

    // Both within the tick at 10 s: A completed at 9 s, web_0's agent heard from at 9.5 s.
    w.report("A", "web_0", "completed", at(9)).heartbeat("web_0", at(9).plusMillis(500));
    ledger.observe(w, at(10)); // as the processor's tick does before stepping
    ledger.constrain(s.rollout());
    s = RolloutPlanner.step(s.rollout(), w, ledger, at(10));
    assertThat(s.rollout().vms().get(RolloutVm.key("web_0", "A")).agentBackAt()).isEqualTo(at(10));
    assertThat(s.releases()).as("settle (1 s) has not passed").isEmpty();

    ledger.observe(w, at(11));
    ledger.constrain(s.rollout());
    s = RolloutPlanner.step(s.rollout(), w, ledger, at(11));
    assertThat(s.rollout().vms().get(RolloutVm.key("web_0", "A")).backAt())
        .as("back for the rollout in the tick the ledger admits B")
        .isEqualTo(at(11));
    assertThat(s.releases()).singleElement().satisfies(x -> assertThat(x.eventId()).isEqualTo("B"));
  }

  /**
   * Past {@link Rollout#MAX_VMS} VMs no more join a rollout, and it halts saying which events could
   * not. The largest rollout it keeps, every VM approved with all its times set, is stored as a
   * header and an entry per VM and event ({@link RolloutParts}): no record of it grows with it (a
   * rollout used to be one 9 MB record, which a broker's default 1 MB limit refused, stopping the
   * stream thread on every instance in turn), and it reads back as it was.
   */
  @Test
  void aRolloutStopsGrowingAtItsMostVmsAndHaltsAndNoRecordOfItGrowsWithIt() {
    TestWorld w = new TestWorld();
    int n = Rollout.MAX_VMS + 3;
    String[] events = new String[n];
    for (int i = 0; i < n; i++) {
      String vm = String.format("vm-%05d", i);
      events[i] = String.format("E-%05d", i);
      w.vm(vm, Integer.toString(i % 3 + 1))
          .event(events[i], vm)
          .report(events[i], vm, "scheduled", T0);
    }
    Rollout r = rollout("big", "10%", events);
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, Ledger.empty(), at(1));
    assertThat(s.rollout().vms()).hasSize(Rollout.MAX_VMS);
    assertThat(s.rollout().state()).isEqualTo(Rollout.HALTED);
    assertThat(s.rollout().halt().reason())
        .contains("tracks " + Rollout.MAX_VMS + " VMs")
        .contains("3 event(s)");
    assertThat(s.releases()).isEmpty();

    // The record at its largest: every VM approved, started, completed, back.
    Map<String, RolloutVm> vms = new java.util.TreeMap<>();
    s.rollout()
        .vms()
        .forEach(
            (k, v) ->
                vms.put(
                    k,
                    v.approved(1, "3f2c9a3e-4c1d-5e6f-8a9b-0c1d2e3f4a5b", at(2), at(1200))
                        .started(at(3), at(1200))
                        .completed(at(4), at(1200))
                        .agentBack(at(5))
                        .back(at(6))));
    Rollout largest =
        new Rollout(
            r.id(),
            r.spec(),
            r.reason(),
            r.requestedBy(),
            r.origin(),
            r.createdAt(),
            Rollout.RUNNING,
            null,
            s.rollout().groupLimits(),
            vms,
            List.of(
                new Rollout.Wave(
                    1,
                    at(2),
                    List.of(events).subList(0, Rollout.MAX_VMS),
                    List.copyOf(vms.keySet()))),
            s.rollout().history());
    var headers = new dev.sebridge.fleet.streams.JsonSerde<>(Rollout.class).serializer();
    var entries = new dev.sebridge.fleet.streams.JsonSerde<>(RolloutPart.class).serializer();
    int whole = headers.serialize("t", largest).length;
    int header = headers.serialize("t", RolloutParts.header(largest)).length;
    Map<String, RolloutPart> parts = RolloutParts.parts(largest);
    int most = 0;
    long total = 0;
    for (RolloutPart p : parts.values()) {
      int size = entries.serialize("t", p).length;
      most = Math.max(most, size);
      total += size;
    }
    System.out.printf(
        "a rollout of %d VMs: %,d bytes whole; stored as a header of %,d bytes and %,d entries of"
            + " at most %,d bytes (%,d in all)%n",
        Rollout.MAX_VMS, whole, header, parts.size(), most, total);
    // a VM's part each, an event each (the three that could not join included), a group's limit
    // each
    assertThat(parts.size())
        .isEqualTo(
            Rollout.MAX_VMS + largest.spec().eventIds().size() + largest.groupLimits().size());
    assertThat(header).isLessThan(8 * 1024);
    assertThat(most).isLessThan(1024);
    // The header at its largest: 200 actions and a halt, each naming a thousand VMs.
    String many = String.join(", ", java.util.Collections.nCopies(1_000, "web-00000 (E-00000)"));
    List<Rollout.Entry> actions = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      actions.add(new Rollout.Entry(at(i), "alice", "skipped", many));
    }
    Rollout busiest =
        new Rollout(
            largest.id(),
            largest.spec(),
            largest.reason(),
            largest.requestedBy(),
            largest.origin(),
            largest.createdAt(),
            Rollout.HALTED,
            new Rollout.Halt(null, "E-00000", "unreported: " + many, at(9)),
            largest.groupLimits(),
            largest.vms(),
            largest.waves(),
            actions);
    int busiestHeader = headers.serialize("t", RolloutParts.header(busiest)).length;
    System.out.printf(
        "its header with 300 actions and a halt naming 1,000 VMs each: %,d bytes%n", busiestHeader);
    assertThat(busiestHeader).isLessThan(300 * 1024);
    Rollout back = RolloutParts.assemble(RolloutParts.header(largest), parts.values());
    assertThat(back.vms()).isEqualTo(largest.vms());
    assertThat(back.spec()).isEqualTo(largest.spec());
    assertThat(back.waves())
        .singleElement()
        .satisfies(
            wave -> {
              assertThat(wave.eventIds()).hasSize(Rollout.MAX_VMS);
              assertThat(wave.vmIds()).hasSize(Rollout.MAX_VMS);
            });
  }

  @Test
  void anOperatorsApprovalOfAnEventWithAnUnreportedVmIsRefusedWhileARolloutIsActive() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_5", "1")
            .event("M", "web_0", "db_7")
            .report("M", "web_0", "scheduled", T0)
            .event("E", "web_5")
            .report("E", "web_5", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.constrain(rollout("r", "1", "E"));
    assertThat(ledger.refusal("M", w, at(1)))
        .hasValueSatisfying(why -> assertThat(why).contains("db_7"));
  }

  /**
   * The names a release's commands claim: a blank name in the event's Resources (an agent's report
   * gave it) is no VM's and is left out; the claim still holds the event to the others. Before, it
   * emptied the claim, and one such name reported by a hostile agent switched off the check for
   * every VM of the event.
   */
  @Test
  void aBlankNameInAnEventsResourcesIsLeftOutOfTheClaim() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .event("E", "web_0", "web_1", " ")
            .report("E", "web_0", "scheduled", T0);
    assertThat(ListedVms.counted("E", w)).containsExactlyInAnyOrder("web_0", "web_1");
  }

  /**
   * A VM reported with a blank name (an agent always sends its name: a buggy or hostile one) is
   * left out of the claim, which still names every other VM the event lists, its own name among
   * them as one no VM reported. Before, such a report emptied the claim: one agent switched the
   * check off for every VM of its event, and a VM Azure added was released counted nowhere. The
   * one-VM event's quick path gives the same.
   */
  @Test
  void aVmReportedWithABlankNameLeavesTheClaimToTheOthers() {
    for (String blank : java.util.Arrays.asList(" ", "", null)) {
      TestWorld w =
          new TestWorld()
              .vm("id-0", "1")
              .vm("web_1", "1")
              .event("E", "web_0", "web_1")
              .namelessReport("E", "id-0", blank, "scheduled", T0)
              .report("E", "web_1", "scheduled", T0)
              .event("ONE", "web_0")
              .namelessReport("ONE", "id-0", blank, "scheduled", T0);
      assertThat(ListedVms.counted("E", w))
          .as("[%s]", blank)
          .containsExactlyInAnyOrder("web_0", "web_1");
      assertThat(ListedVms.counted("ONE", w)).as("[%s]", blank).containsExactly("web_0");
      // The ledger enters it by vmId and its name as one no VM reported: counted twice, never less.
      Ledger l = Ledger.empty();
      l.release("E", w, "policy", T0);
      assertThat(l.entries().values())
          .extracting(LedgerEntry::vmKey)
          .contains(LedgerEntry.vmKey("id-0", null), LedgerEntry.vmKey(null, "web_0"));
    }
  }

  /**
   * A resume names the halt it resumes: sent again (a client's retry after a lost answer), or read
   * after the rollout halted again, it resumes nothing, and the new halt waits for someone to read
   * it. Before, the second resume resumed a halt nobody had read.
   */
  @Test
  void aResumeOfAnEarlierHaltResumesNothing() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .event("E", "web_0", "web_1")
            .report("E", "web_0", "scheduled", T0);
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "2", "E"), w, Ledger.empty(), at(1));
    s = RolloutPlanner.step(s.rollout(), w, Ledger.empty(), at(31));
    Rollout.Halt first = s.rollout().halt();
    assertThat(first).isNotNull();
    RolloutCommand resume =
        new RolloutCommand(
            "r", RolloutCommand.RESUME, null, null, "go on", "bob", at(32), first.at());
    Rollout resumed = RolloutActions.apply(s.rollout(), resume, at(32));
    assertThat(resumed.halt()).isNull();
    // It halts again (web_1 still has not reported E after the grace), then the same resume again.
    Rollout again = RolloutPlanner.step(resumed, w, Ledger.empty(), at(70)).rollout();
    assertThat(again.halt()).isNotNull();
    assertThat(again.halt().at()).isNotEqualTo(first.at());
    Rollout notApplied = RolloutActions.apply(again, resume, at(71));
    assertThat(notApplied.halt()).isEqualTo(again.halt());
    assertThat(notApplied.state()).isEqualTo(Rollout.HALTED);
    assertThat(notApplied.history().get(notApplied.history().size() - 1))
        .satisfies(
            e -> {
              assertThat(e.action()).isEqualTo("resume not applied");
              assertThat(e.detail()).contains(first.at().toString()).contains("halted since");
            });
    RolloutCommand current =
        new RolloutCommand(
            "r", RolloutCommand.RESUME, null, null, "go on", "bob", at(72), again.halt().at());
    assertThat(RolloutActions.apply(again, current, at(72)).halt()).isNull();
  }

  @Test
  void skippingAPendingVmOfAnEventSkipsTheWholeEvent() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .vm("web_2", "1")
            .vm("web_3", "1")
            .event("E", "web_0", "web_1", "web_2")
            .report("E", "web_0", "scheduled", T0)
            .report("E", "web_1", "scheduled", T0)
            .report("E", "web_2", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "2", "E"), w, ledger, at(1));
    assertThat(s.rollout().halt().reason()).contains("would release 3 VMs");
    assertThat(s.rollout().halt().at()).as("what a resume names").isEqualTo(at(1));

    Rollout r =
        RolloutActions.apply(
            s.rollout(), command(s.rollout(), RolloutCommand.SKIP, "web_0", null), at(2));
    r = RolloutActions.apply(r, command(r, RolloutCommand.RESUME, null, null), at(3));
    s = RolloutPlanner.step(r, w, ledger, at(4));

    assertThat(s.releases()).as("releasing E would start web_0 too").isEmpty();
    assertThat(s.rollout().vms().values())
        .extracting(RolloutVm::phase)
        .containsOnly(RolloutVm.SKIPPED);
    assertThat(ledger.entries()).isEmpty();
  }

  /**
   * Item 3: a VM's second event in the same rollout is an entry of its own. web_3 has a Freeze F
   * (held: web_9, which it also lists, has not reported it) and a Reboot R. Keyed by VM alone, R
   * never joined while web_3 was F's, and never after F was skipped: never approved, never halted,
   * started at NotBefore outside the rollout.
   */
  @Test
  void aVmsSecondEventIsAnEntryOfItsOwnReleasedWhileItsFirstIsHeldAndAfterItIsSkipped() {
    TestWorld w =
        new TestWorld()
            .vm("web_3", "1")
            .vm("web_4", "1")
            .vm("web_9", "1")
            .event("F", "web_3", "web_9")
            .event("R", "web_3")
            .report("F", "web_3", "scheduled", T0)
            .report("R", "web_3", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "1", "F", "R"), w, ledger, at(1));
    assertThat(s.rollout().vms())
        .containsOnlyKeys(RolloutVm.key("web_3", "F"), RolloutVm.key("web_3", "R"));
    assertThat(s.releases())
        .as("R lists only web_3 and fits; F waits for web_9")
        .singleElement()
        .satisfies(x -> assertThat(x.eventId()).isEqualTo("R"));

    Rollout r =
        RolloutActions.apply(
            s.rollout(), command(s.rollout(), RolloutCommand.SKIP, null, "F"), at(2));
    assertThat(r.vms().get(RolloutVm.key("web_3", "F")).phase()).isEqualTo(RolloutVm.SKIPPED);
    assertThat(r.vms().get(RolloutVm.key("web_3", "R")).phase())
        .as("skipping F leaves web_3's R as it was")
        .isEqualTo(RolloutVm.APPROVED);
  }

  /**
   * Item 3, both events at once: web_3 is already down for F, so R (web_3, and web_4 in zone 2)
   * costs zone 1 nothing more and goes in the same wave; the ledger counts web_3 once. Once web_3
   * is back from F, F's entry (its wave, its times) is still there beside R's, not overwritten.
   */
  @Test
  void aVmsTwoEventsGoTogetherCountedOnceAndKeepAnEntryEach() {
    TestWorld w =
        new TestWorld()
            .vm("web_3", "1")
            .vm("web_4", "2")
            .vm("web_5", "1")
            .event("F", "web_3")
            .event("R", "web_3", "web_4")
            .event("G", "web_5")
            .report("F", "web_3", "scheduled", T0)
            .report("R", "web_3", "scheduled", T0)
            .report("R", "web_4", "scheduled", T0)
            .report("G", "web_5", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "1", "F", "R", "G"), w, ledger, at(1));
    assertThat(s.releases())
        .as("web_3 counts once in zone 1; web_5 would be a second VM there")
        .extracting(RolloutPlanner.Release::eventId)
        .containsExactly("F", "R");
    assertThat(ledger.unavailable(Duration.ZERO, at(1)))
        .containsExactlyInAnyOrder("web_3", "web_4");

    w.report("F", "web_3", "completed", at(5)).heartbeat("web_3", at(6));
    ledger.observe(w, at(7));
    s = RolloutPlanner.step(s.rollout(), w, ledger, at(7));
    assertThat(s.releases()).as("web_3 is still R's").isEmpty();
    RolloutVm first = s.rollout().vms().get(RolloutVm.key("web_3", "F"));
    assertThat(first.phase()).isEqualTo(RolloutVm.BACK);
    assertThat(first.wave()).isEqualTo(1);
    assertThat(s.rollout().vms().get(RolloutVm.key("web_3", "R")).phase())
        .isEqualTo(RolloutVm.APPROVED);
  }

  /**
   * A VM whose part the fleet closed as vanished (nothing heard from it for fleet.vm-retention) is
   * unknown again, not gone: its agent may only be silent, and IMDS would release it with the
   * event. While a rollout is active the event is held (and halts naming it); it is never counted
   * in a group of its own, nor as back.
   */
  @Test
  void aVanishedVmIsUnknownAgainAndHoldsItsEvent() {
    TestWorld w =
        new TestWorld()
            .vm("web_a", "1")
            .vm("web_b", "2")
            .vm("web_c", "1")
            .event("E", "web_a", "web_b")
            .event("C", "web_c")
            .report("C", "web_c", "started", T0)
            .report("E", "web_b", "scheduled", T0)
            .vanished("E", "web_a", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    assertThat(ListedVms.unreported("E", w)).containsExactly("web_a");
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "1", "E"), w, ledger, at(1));
    assertThat(s.releases())
        .as("IMDS would reboot web_a with web_b; zone 1 has web_c down")
        .isEmpty();
    assertThat(ledger.refusal("E", w, at(1))).isPresent();
    s = RolloutPlanner.step(s.rollout(), w, ledger, at(40));
    assertThat(s.rollout().halt()).isNotNull();
    assertThat(s.rollout().halt().reason()).contains("web_a");
  }

  /** A rollout record written when entries were keyed by vmId alone reads keyed by VM and event. */
  @Test
  void aRolloutKeyedByVmAloneReadsKeyedByVmAndEvent() {
    RolloutVm v = RolloutVm.pending("web_3", "web_3", "E-1", "zone=1");
    Rollout r = rollout("r", "1", "E-1");
    Rollout old =
        new Rollout(
            r.id(),
            r.spec(),
            r.reason(),
            r.requestedBy(),
            r.origin(),
            r.createdAt(),
            r.state(),
            r.halt(),
            r.groupLimits(),
            Map.of("web_3", v),
            r.waves(),
            r.history());
    assertThat(old.vms()).containsOnlyKeys("web_3|e-1");
    assertThat(old.hasVm("web_3")).isTrue();
  }

  @Test
  void aVmThatReportsASkippedEventLateJoinsItSkipped() {
    TestWorld w =
        new TestWorld()
            .vm("web_0", "1")
            .vm("web_1", "1")
            .vm("web_2", "1")
            .event("E", "web_0", "web_1")
            .report("E", "web_0", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "2", "E"), w, ledger, at(1));
    Rollout r =
        RolloutActions.apply(
            s.rollout(), command(s.rollout(), RolloutCommand.SKIP, null, "E"), at(2));
    w.report("E", "web_1", "scheduled", at(3));
    s = RolloutPlanner.step(r, w, ledger, at(4));
    assertThat(s.releases()).isEmpty();
    assertThat(s.rollout().vms().get(RolloutVm.key("web_1", "E")).phase())
        .isEqualTo(RolloutVm.SKIPPED);
  }

  @Test
  void twoRolloutsOverTheSameGroupShareItsLimit() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "2")
            .vm("vm-b", "2")
            .vm("vm-c", "2")
            .event("E1", "vm-a")
            .report("E1", "vm-a", "scheduled", T0)
            .event("E2", "vm-b")
            .report("E2", "vm-b", "scheduled", T0);
    Rollout r1 = rollout("r1", "1", "E1");
    Rollout r2 = rollout("r2", "1", "E2");
    Ledger ledger = Ledger.empty();
    ledger.constrain(r1);
    ledger.constrain(r2);

    int released =
        RolloutPlanner.step(r1, w, ledger, at(1)).releases().size()
            + RolloutPlanner.step(r2, w, ledger, at(1)).releases().size();

    assertThat(released).as("zone 2 has room for one, whichever rollout asks").isEqualTo(1);
  }

  @Test
  void anEventAnActiveRolloutHoldsIsItsToRelease() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "3")
            .vm("vm-b", "3")
            .event("E", "vm-a", "vm-b")
            .report("E", "vm-a", "scheduled", T0)
            .report("E", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    Rollout r = RolloutPlanner.step(rollout("r", "1", "E"), w, ledger, at(1)).rollout();
    assertThat(r.state()).as("E alone is over zone 3's limit").isEqualTo(Rollout.HALTED);
    ledger.constrain(r);
    assertThat(ledger.holder("E")).map(Rollout::id).contains("r");

    Rollout skipped = RolloutActions.apply(r, command(r, RolloutCommand.SKIP, null, "E"), at(2));
    ledger.constrain(skipped);
    assertThat(ledger.holder("E")).as("skipped: NotBefore or an operator may start it").isEmpty();
  }

  /**
   * An event lists vm-x and vm-y; vm-y's part closes, then vm-x's first report opens the event
   * again. Released counting vm-x from its part, then read on views that stopped between the two (a
   * failover onto an instance behind): they hold the event closed and no part of vm-x's. Taken for
   * over, vm-x was back at its next heartbeat, before the event ran for it (Azure starts it after
   * the host's other tenants), and its zone's room was given to another VM; nothing counted it
   * again once its part showed scheduled. Now such an entry is not over until the views show its
   * part closed, or the hour rule. Found by reading (a reviewer) and reachable in FleetSafetyTest's
   * world with failovers onto views behind and late starts.
   */
  @Test
  void viewsThatHoldAnEventClosedWithoutTheVmsPartDoNotTakeItForOver() {
    TestWorld fresh =
        new TestWorld()
            .vm("vm-x", "1")
            .vm("vm-y", "1")
            .event("E", "vm-x", "vm-y")
            .report("E", "vm-y", "completed", at(20))
            .report("E", "vm-x", "scheduled", at(25));
    Ledger ledger = Ledger.empty();
    ledger.release("E", fresh, "api", at(26));
    TestWorld stale =
        new TestWorld()
            .vm("vm-x", "1")
            .vm("vm-y", "1")
            .event("E", "vm-x", "vm-y")
            .report("E", "vm-y", "completed", at(20))
            .heartbeat("vm-x", at(30));
    ledger.observe(stale, at(31));
    stale.heartbeat("vm-x", at(33));
    ledger.observe(stale, at(34));
    assertThat(ledger.unavailable(Duration.ZERO, at(34))).contains("vm-x");
    fresh.heartbeat("vm-x", at(35));
    ledger.observe(fresh, at(36));
    assertThat(ledger.unavailable(Duration.ZERO, at(36))).contains("vm-x");
    // Its part closes and it is heard from after: back, as ever.
    fresh.report("E", "vm-x", "completed", at(40)).heartbeat("vm-x", at(41));
    ledger.observe(fresh, at(42));
    assertThat(ledger.unavailable(Duration.ZERO, at(42))).doesNotContain("vm-x");
  }

  /**
   * The rollouts task moves to an instance whose global views do not show a released event yet (a
   * burst behind on its views-events partition): the event is not taken for over. Taken so, its VM
   * was back at its next heartbeat, before Azure ran the event (held for the host's other tenants,
   * or its NotBefore), and the rollout released the next VM of its zone. Once the views show it,
   * the rules are as ever; an event still not shown an hour after its release was forgotten.
   */
  @Test
  void aReleasedEventTheViewsDoNotShowYetIsNotTakenForOver() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "1")
            .event("E1", "vm-a")
            .report("E1", "vm-a", "scheduled", T0)
            .event("E2", "vm-b")
            .report("E2", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    RolloutPlanner.Step s = RolloutPlanner.step(rollout("r", "1", "E1", "E2"), w, ledger, at(1));
    assertThat(s.releases()).extracting(RolloutPlanner.Release::eventId).containsExactly("E1");
    ledger.constrain(s.rollout());
    // Another instance's views: E1 not there yet; vm-a heard from.
    TestWorld behind =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "1")
            .event("E2", "vm-b")
            .report("E2", "vm-b", "scheduled", T0)
            .heartbeat("vm-a", at(30));
    Ledger next = ledger.copy();
    next.observe(behind, at(31));
    behind.heartbeat("vm-a", at(40));
    next.observe(behind, at(41));
    assertThat(next.unavailable(Duration.ZERO, at(41))).containsExactly("vm-a");
    RolloutPlanner.Step later = RolloutPlanner.step(s.rollout(), behind, next, at(41));
    assertThat(later.releases()).as("zone 1 has vm-a down").isEmpty();
    // The views catch up: the usual rules (done, and heard from after it, it is back).
    Ledger caughtUp = next.copy();
    behind.event("E1", "vm-a").report("E1", "vm-a", "completed", at(50)).heartbeat("vm-a", at(55));
    caughtUp.observe(behind, at(56));
    assertThat(caughtUp.unavailable(Duration.ZERO, at(56))).isEmpty();
    // Views that hold it closed, vm-a with no part in it (only vm-c reported): behind, since an
    // event's view never drops a part and vm-a's entry was made from its own; over only by the
    // hour rule. (Before, over at once: see the next test.)
    TestWorld closed =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-c", "2")
            .event("E1", "vm-a", "vm-c")
            .report("E1", "vm-c", "completed", at(30))
            .heartbeat("vm-a", at(30));
    Ledger byClosed = next.copy();
    byClosed.observe(closed, at(57));
    closed.heartbeat("vm-a", at(58));
    byClosed.observe(closed, at(59));
    assertThat(byClosed.unavailable(Duration.ZERO, at(59))).contains("vm-a");
    byClosed.observe(closed, at(3601));
    closed.heartbeat("vm-a", at(3602));
    byClosed.observe(closed, at(3603));
    assertThat(byClosed.unavailable(Duration.ZERO, at(3603))).doesNotContain("vm-a");
    // An hour after its release, an event the views still do not hold was forgotten.
    behind = new TestWorld().vm("vm-a", "1").vm("vm-b", "1").heartbeat("vm-a", at(3601));
    next.observe(behind, at(3602));
    behind.heartbeat("vm-a", at(3610));
    next.observe(behind, at(3611));
    assertThat(next.unavailable(Duration.ZERO, at(3611))).isEmpty();
  }

  /**
   * The same for a VM without an agent the inventory places: it counts its hour (taken for over, it
   * was back ten minutes later).
   */
  @Test
  void aReleasedEventOfAVmWithoutAnAgentTheViewsDoNotShowYetCountsItsHour() {
    TestWorld w =
        new TestWorld()
            .placedVm("web-x", "1")
            .inventoryZone("web-x", "1")
            .vm("vm-b", "1")
            .event("E1", "web-x")
            .azure("E1", dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED)
            .event("E2", "vm-b")
            .report("E2", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.release("E1", w, "api", at(1)); // acknowledged through the Maintenance API
    ledger.observe(w, at(2));
    assertThat(ledger.unavailable(Duration.ZERO, at(2))).containsExactly("web-x");
    TestWorld behind =
        new TestWorld()
            .placedVm("web-x", "1")
            .inventoryZone("web-x", "1")
            .vm("vm-b", "1")
            .event("E2", "vm-b")
            .report("E2", "vm-b", "scheduled", T0);
    Rollout r = rollout("r", "1", "E2");
    ledger.constrain(r);
    for (int minute = 1; minute <= 30; minute++) {
      ledger.observe(behind, at(60 * minute));
    }
    assertThat(ledger.unavailable(Duration.ZERO, at(1800))).containsExactly("web-x");
    assertThat(RolloutPlanner.step(r, behind, ledger, at(1800)).releases())
        .as("web-x counts in zone 1 for its hour")
        .isEmpty();
    ledger.observe(behind, at(3601));
    assertThat(ledger.unavailable(Duration.ZERO, at(3601))).as("its hour is over").isEmpty();
  }

  @Test
  void anApprovalWhoseStepWasLostIsCountedFromTheRequestsView() {
    // r1 approved E1 in a step whose state was lost (at_least_once): its commands are out.
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "1")
            .vm("vm-c", "1")
            .event("E1", "vm-a")
            .report("E1", "vm-a", "scheduled", T0)
            .event("E2", "vm-b")
            .report("E2", "vm-b", "scheduled", T0)
            .requested("E1");
    Rollout r1 = rollout("r1", "1", "E1");
    Rollout r2 = rollout("r2", "1", "E2");
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    ledger.constrain(r1);
    ledger.constrain(r2);

    assertThat(RolloutPlanner.step(r2, w, ledger, at(1)).releases())
        .as("vm-a is down already")
        .isEmpty();
  }

  @Test
  void aPercentageLimitFollowsTheGroupsLiveSizeDownward() {
    TestWorld w = new TestWorld();
    for (int i = 0; i < 20; i++) {
      w.vm("vm-" + i, "1");
    }
    w.event("E1", "vm-0").report("E1", "vm-0", "scheduled", T0);
    w.event("E2", "vm-1").report("E2", "vm-1", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    Rollout r = rollout("r", "10%", "E1", "E2");
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, at(1));
    assertThat(s.rollout().groupLimits()).containsEntry("zone=1", 2);
    assertThat(s.releases()).hasSize(2);

    // scale-in: 10 VMs left, 10% of them is 1, and two are down already
    TestWorld smaller = new TestWorld();
    for (int i = 0; i < 10; i++) {
      smaller.vm("vm-" + i, "1");
    }
    smaller.event("E3", "vm-2").report("E3", "vm-2", "scheduled", T0);
    Ledger after = ledger.copy();
    after.constrain(s.rollout());
    assertThat(after.refusal("E3", smaller, at(2))).isPresent();
  }

  @Test
  void entriesLeaveTheLedgerADayAfterTheirVmIsBackAndItStaysFlatOverMonths() {
    TestWorld w = new TestWorld();
    Map<String, LedgerEntry> stored = Map.of();
    int most = 0;
    // 90 days, one event an hour: released, started, completed, agent heard from.
    for (int hour = 0; hour < 90 * 24; hour++) {
      Instant t = T0.plus(Duration.ofHours(hour));
      String vm = "vm-" + (hour % 50);
      String event = "E" + hour;
      w.vm(vm, "1").event(event, vm).report(event, vm, "started", t);
      Ledger l = new Ledger(stored);
      l.observe(w, t.plusSeconds(1));
      w.report(event, vm, "completed", t.plusSeconds(600)).heartbeat(vm, t.plusSeconds(660));
      l.observe(w, t.plusSeconds(700));
      stored = Map.copyOf(l.entries());
      most = Math.max(most, stored.size());
    }
    assertThat(stored.size()).as("about a day of entries").isBetween(24, 26);
    assertThat(most).isLessThanOrEqualTo(26);
  }

  @Test
  void aVmReportedCanceledAfterItsEventWasReleasedCountsUntilItsAgentIsHeardFrom() {
    // vm-b rebooted early (vm-a's agent approved the event); its restarted agent guesses the
    // event it did not see start was canceled.
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "1")
            .event("E", "vm-a", "vm-b")
            .report("E", "vm-a", "approved", T0)
            .report("E", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    w.report("E", "vm-b", "canceled", at(5));
    ledger.observe(w, at(6));
    assertThat(ledger.unavailable(Duration.ZERO, at(6))).contains("vm-b");
    w.heartbeat("vm-b", at(30));
    ledger.observe(w, at(31));
    assertThat(ledger.unavailable(Duration.ZERO, at(31))).doesNotContain("vm-b");
  }

  @Test
  void aVmCountedByNameTakesRoomInEveryGroupOfARollout() {
    // E0 was started by the platform; it lists c-7, whose agent never reported it.
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "2")
            .vm("vm-d", "2")
            .event("E0", "vm-a", "c-7")
            .report("E0", "vm-a", "started", T0)
            .event("E1", "vm-b")
            .report("E1", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    assertThat(ledger.entries()).containsKey("name:c-7|e0");
    ledger.constrain(rollout("r", "1", "E1"));
    assertThat(ledger.refusal("E1", w, at(2)))
        .as("c-7 may be in zone 2")
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
  }

  @Test
  void aVmWithoutAnAgentThatAzureSaysStartedTakesRoomInEveryGroupUntilAzureSaysItIsOver() {
    // E0 lists only db-1, which runs no agent: no agent reports it; Azure's central delivery says
    // it started (the platform started it at NotBefore).
    TestWorld w =
        new TestWorld()
            .vm("vm-b", "2")
            .vm("vm-d", "2")
            .event("E0", "db-1")
            .azure("E0", dev.sebridge.fleet.agentless.AzureEventStatus.STARTED)
            .event("E1", "vm-b")
            .report("E1", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    assertThat(ledger.entries()).containsKey("name:db-1|e0");
    ledger.constrain(rollout("r", "1", "E1"));
    assertThat(ledger.refusal("E1", w, at(2)))
        .as("db-1 may be in zone 2")
        .hasValueSatisfying(why -> assertThat(why).contains("zone=2"));
    // Azure says it completed: db-1 stops holding the groups 10 minutes after the event closed
    w.azure("E0", dev.sebridge.fleet.agentless.AzureEventStatus.COMPLETED);
    ledger.observe(w, at(3));
    ledger.observe(w, at(3 + 599));
    assertThat(ledger.refusal("E1", w, at(3 + 599))).as("until 10 minutes after").isPresent();
    ledger.observe(w, at(3 + 601));
    assertThat(ledger.refusal("E1", w, at(3 + 601))).isEmpty();
  }

  /**
   * An event only Azure reports (db-1 runs no agent), approved (through the Maintenance API) while
   * Azure says Scheduled: Azure may start it hours later, after the host's other tenants. db-1
   * counts an hour at most while nothing says it started (an acknowledgement may have failed), and
   * again from when Azure says Started until 10 minutes after Azure says it is over.
   */
  @Test
  void aVmWithoutAnAgentCountsAgainWhenAzureSaysItsApprovedEventStartedHoursLater() {
    TestWorld w =
        new TestWorld()
            .vm("vm-b", "2")
            .vm("vm-d", "2")
            .event("E0", "db-1")
            .azure("E0", dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED)
            .event("E1", "vm-b")
            .report("E1", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.release("E0", w, "api", at(0));
    ledger.constrain(rollout("r", "1", "E1"));
    int hours3 = 3 * 3600;
    ledger.observe(w, at(hours3));
    assertThat(ledger.refusal("E1", w, at(hours3)))
        .as("Scheduled three hours after the approval, nothing says it started")
        .isEmpty();
    w.azure("E0", dev.sebridge.fleet.agentless.AzureEventStatus.STARTED);
    ledger.observe(w, at(hours3 + 60));
    assertThat(ledger.refusal("E1", w, at(hours3 + 60)))
        .as("Azure says it started: db-1 counts again")
        .isPresent();
    ledger.observe(w, at(hours3 + 2 * 3600));
    assertThat(ledger.refusal("E1", w, at(hours3 + 2 * 3600)))
        .as("running for two hours: no cap while Azure says it runs")
        .isPresent();
    w.azure("E0", dev.sebridge.fleet.agentless.AzureEventStatus.COMPLETED);
    int over = hours3 + 2 * 3600 + 60;
    ledger.observe(w, at(over));
    ledger.observe(w, at(over + 599));
    assertThat(ledger.refusal("E1", w, at(over + 599))).isPresent();
    ledger.observe(w, at(over + 601));
    assertThat(ledger.refusal("E1", w, at(over + 601))).isEmpty();
  }

  /**
   * An event an agent also reports: its agent restarts during the reboot and infers "canceled", so
   * the view closes; Azure still says Started. The VM without an agent it lists keeps counting.
   */
  @Test
  void aVmKnownByNameCountsWhileAzureSaysStartedEvenWhenTheViewClosed() {
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "2")
            .event("E0", "vm-a", "db-1")
            .report("E0", "vm-a", "started", T0)
            .azure("E0", dev.sebridge.fleet.agentless.AzureEventStatus.STARTED)
            .event("E1", "vm-b")
            .report("E1", "vm-b", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    assertThat(ledger.entries()).containsKey("name:db-1|e0");
    ledger.constrain(rollout("r", "1", "E1"));
    w.report("E0", "vm-a", "canceled", at(5));
    ledger.observe(w, at(10));
    ledger.observe(w, at(10 + 700));
    assertThat(ledger.refusal("E1", w, at(10 + 700)))
        .as("10 minutes after the view closed, Azure still says Started: db-1 may be in zone 2")
        .isPresent();
  }

  @Test
  void anEventOfAVmAlreadyDownIsNotReleasedIntoAGroupOverItsLimit() {
    // vm-3 is down from a platform start (E2), vm-6 from an approval (E3): zone 1 is over a
    // limit of 1 already. E8 lists only vm-3, but would keep it down after E2 is over.
    TestWorld w =
        new TestWorld()
            .vm("vm-3", "1")
            .vm("vm-6", "1")
            .vm("vm-9", "1")
            .event("E2", "vm-3")
            .report("E2", "vm-3", "started", T0)
            .event("E3", "vm-6")
            .report("E3", "vm-6", "started", T0)
            .event("E8", "vm-3")
            .report("E8", "vm-3", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    ledger.constrain(rollout("r", "1", "E9"));
    assertThat(ledger.refusal("E8", w, at(2))).isPresent();
  }

  @Test
  void aVmCountedByNameStopsHoldingEveryGroupAnHourAfterItsReleaseIfItsEventStaysOpen() {
    // E0 stays open for good: vm-b, which it lists, was deleted mid-event and never reports
    TestWorld w =
        new TestWorld()
            .vm("vm-a", "1")
            .vm("vm-b", "1")
            .vm("vm-c", "2")
            .event("E0", "vm-a", "vm-b", "c-7")
            .report("E0", "vm-a", "completed", T0)
            .report("E0", "vm-b", "started", T0)
            .heartbeat("vm-a", at(60))
            .event("E1", "vm-c")
            .report("E1", "vm-c", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    ledger.constrain(rollout("r", "1", "E1"));
    assertThat(ledger.refusal("E1", w, at(2))).as("c-7 may be in zone 2").isPresent();
    ledger.observe(w, at(3601));
    assertThat(ledger.refusal("E1", w, at(3601))).isEmpty();
  }

  @Test
  void anEventSkippedForAVmIsNotReleasedOnceThatVmIsBackFromAnotherEvent() {
    TestWorld w =
        new TestWorld()
            .vm("vm-x", "1")
            .vm("vm-y", "1")
            .vm("vm-z", "1")
            .event("A", "vm-x")
            .report("A", "vm-x", "scheduled", T0)
            .event("B", "vm-x")
            .report("B", "vm-x", "scheduled", T0)
            .event("C", "vm-y")
            .report("C", "vm-y", "started", T0) // zone 1 is full: A waits
            .vm("vm-w", "2")
            .event("D", "vm-w") // released at once in zone 2, and never back: r stays active
            .report("D", "vm-w", "scheduled", T0);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    Rollout r = rollout("r", "1", "A", "B", "D");
    ledger.constrain(r);
    RolloutPlanner.Step s = RolloutPlanner.step(r, w, ledger, at(1));
    assertThat(s.releases()).extracting(RolloutPlanner.Release::eventId).containsExactly("D");
    r =
        RolloutActions.apply(
            s.rollout(), command(s.rollout(), RolloutCommand.SKIP, "vm-x", null), at(2));
    for (int t = 3; t < 30; t++) {
      if (t == 4) {
        w.report("C", "vm-y", "completed", at(3)).heartbeat("vm-y", at(4)); // vm-y is back
      }
      if (t == 10) {
        // B runs on vm-x (released by the rollout or by NotBefore), and vm-x comes back
        w.report("B", "vm-x", "completed", at(10)).heartbeat("vm-x", at(11));
      }
      ledger.observe(w, at(t));
      s = RolloutPlanner.step(r, w, ledger, at(t));
      r = s.rollout();
      assertThat(s.releases())
          .as("tick %d", t)
          .extracting(RolloutPlanner.Release::eventId)
          .doesNotContain("A");
    }
  }

  @Test
  void aRequestWithoutAnEventIdInTheRequestsViewIsIgnored() {
    TestWorld w = new TestWorld().vm("vm-a", "1").event("E", "vm-a");
    w.requested(null);
    Ledger ledger = Ledger.empty();
    ledger.observe(w, at(1));
    assertThat(ledger.entries()).isEmpty();
  }
}
