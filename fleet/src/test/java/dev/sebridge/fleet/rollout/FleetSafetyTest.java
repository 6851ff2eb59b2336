package dev.sebridge.fleet.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The fleet's promise, checked against what IMDS did: no approval the fleet sends while a rollout
 * is active leaves more VMs of a group unavailable, because the fleet approved their events, than
 * that rollout's limit for the group.
 *
 * <p>The truth is this test's simulated fleet, not the service's view of itself: which VMs IMDS
 * released and why (an approval releases an event for every VM in its {@code Resources}; NotBefore
 * releases it on its own), each VM's real zone, when it came back, and how many VMs each group
 * really has (VMs without an agent included). The service sees it through views one step late.
 *
 * <p>The world holds what reality holds: VMs whose agent reports an event late or never (no agent),
 * events of one to three VMs, VMs with a second event, two or three rollouts at once over the same
 * groups (and an event in two of them), an operator approving events by hand and a policy that
 * starts approving mid-run (both through the ledger, as the rollout processor runs them), operators
 * resuming and skipping pending VMs or whole events, groups shrinking (scale-in), instances killed
 * mid-step under exactly-once (the step's state and approvals lost together) and under
 * at-least-once (its approvals out, its state lost), agents that reject, and Azure's central
 * delivery (fleet.central-events) telling of an event late or never, the only word on VMs without
 * an agent, and (in half the runs, fleet.acknowledge.enabled) operators', policies' and rollouts'
 * approvals releasing those VMs through Azure's Maintenance API too, which Azure takes as IMDS
 * takes an approval. In half the runs Azure's inventory (fleet.inventory.*) places VMs an event
 * lists by name in their groups, with VMs it misses and namesakes in other resource groups and
 * zones. Some VMs move to another resource group mid-run, down or not (drift): a rollout grouped by
 * resource group must count a VM moved while down in the group it is in now, from when the fleet's
 * inputs show the move (Azure's inventory at once, a VM's agent only once it is heard from again).
 * Some agents, and Azure's inventory for some VMs, spell a resource group in upper case, as Azure's
 * Compute often does: the same group. Azure adds a VM to some events' {@code Resources} after they
 * were scheduled, sometimes in the very tick an approval goes out, before any view could show it:
 * IMDS then releases that VM too, unless the agent that posts refuses because the approval's {@code
 * resources} claim does not name it. Some operators' approvals reach an instance whose views are
 * some ticks behind the API's (a failover's restore), for an event it does not show yet, naming the
 * VMs with an agent the API's view listed: IMDS releases every VM the event lists, unless the
 * agents refuse because the claim names only those the ledger counted. The steps read the views of
 * one of two instances, each a tick behind the truth and now and then stalled for up to ten ticks
 * (the global store's thread held up); an instance's death moves the rollouts task to the other,
 * whose views may be further behind than those its restored state was decided on (exactly_once_v2
 * worlds; at_least_once ones keep their views a tick behind, see docs/fleet.md, "Failover and
 * at_least_once"). The views hold an event from its first report or Azure's delivery of it, not
 * before. Azure starts some approved events late, after the host's other tenants.
 */
class FleetSafetyTest {
  static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");

  @Property(tries = 1000)
  @net.jqwik.api.statistics.StatisticsReport(format = net.jqwik.api.statistics.Histogram.class)
  void fleetApprovalsNeverPutAGroupOverAnActiveRolloutsLimit(@ForAll("seed") long seed) {
    try {
      run(seed);
    } finally {
      statistics();
    }
    net.jqwik.api.statistics.Statistics.label("rollout released placed VMs")
        .coverage(c -> c.check(true).count(n -> n >= 20));
    net.jqwik.api.statistics.Statistics.label("rollout acknowledged")
        .coverage(c -> c.check(true).count(n -> n >= 10));
    net.jqwik.api.statistics.Statistics.label("agent refused an event Azure had grown")
        .coverage(c -> c.check(true).count(n -> n >= 10));
    net.jqwik.api.statistics.Statistics.label("rollout released a refused event again")
        .coverage(c -> c.check(true).count(n -> n >= 5));
    net.jqwik.api.statistics.Statistics.label("operator approved an event the view did not show")
        .coverage(c -> c.check(true).count(n -> n >= 100));
    net.jqwik.api.statistics.Statistics.label("rollouts task moved to views further behind")
        .coverage(c -> c.check(true).count(n -> n >= 500));
  }

  /**
   * A seed CI drew (2026-11-29): the rollouts task fails over to an instance whose views are five
   * ticks behind, where the group is one VM larger than it is now; the limit recorded when the
   * group was first met was never lowered when the group shrank, so the stale views' larger limit
   * let a fourth VM of a group limited to three go. A recorded limit now only ever goes down
   * (StaleViewsTest shows it on a world written for it too). The truth holds the product to it:
   * once a rollout has a group's limit recorded, the limit is the smallest its real size makes at
   * any committed step's views since ({@link Sim#limit}); this world is red without the fix.
   */
  @net.jqwik.api.Example
  void aFailoverToViewsWhereTheGroupIsLargerDoesNotRaiseItsLimit() {
    run(-58930L);
  }

  /**
   * A seed 20,000 tries drew (2026-11-29, try 15,844): vm-7, down for its event, is moved to
   * another resource group while the active instance's views are stalled (nine ticks); its agent
   * reports from there at tick 60, and at tick 62 the step, on views of tick 53, releases vm-8 of
   * the group vm-7 joined. The views could not know: the truth is judged as the fleet's inputs
   * stood when the views the release was decided on were taken (docs/fleet.md, "Views behind").
   * Until then the judge took the inputs of the tick before, whatever views decided, and this world
   * was red.
   */
  @net.jqwik.api.Example
  void aVmMovedWhileDownAndTheViewsStalledIsJudgedByWhatTheViewsCouldKnow() {
    run(20560550351383L);
  }

  /**
   * A seed a run drew (2026-11-29, red at 64cdd82 too): Azure's NotBefore started a grown event for
   * the VM it added, which no view listed yet, and the truth counted it from NotBefore; the fleet
   * then released two VMs already down in that group. The truth now counts such a VM once views a
   * step had showed it in the event ({@link Sim#counts(Sim.Event, Sim.Vm, Sim.Release, int, int)}).
   */
  @net.jqwik.api.Example
  void aVmAzureAddedToAnEventCountsAtNotBeforeOnceTheViewsListIt() {
    run(3442228L);
  }

  /**
   * A VM without an agent, moved to another resource group at tick 15, and an event of it and of a
   * VM of the old group released at tick 17 on views stalled at tick 9. The views read Azure's
   * inventory as it stood at the end of the run, not at tick 9: they put the moved VM in its new
   * group (where it was), and the truth, by tick 9's inputs, in its old one, two VMs of a group
   * over a limit of one that only the simulation's timeless inventory made. Since 2026-11-29 the
   * simulated inventory answers as it stood at the views' tick.
   */
  @net.jqwik.api.Example
  void viewsBehindReadTheInventoryAsItStoodThen() {
    run(17400836242843L);
  }

  private void run(long seed) {
    Random rnd = new Random(seed);
    Sim sim = new Sim(rnd);
    Map<String, Rollout> committed = new TreeMap<>();
    // Rollouts start at the beginning or mid-run, after other releases already happened.
    Map<Integer, List<Rollout>> starting = new TreeMap<>();
    int rollouts = 1 + rnd.nextInt(3);
    for (int k = 0; k < rollouts; k++) {
      int at = rnd.nextBoolean() ? 1 : 1 + rnd.nextInt(150);
      starting.computeIfAbsent(at, t -> new ArrayList<>()).add(sim.newRollout(rnd, "r" + k));
    }
    Map<String, LedgerEntry> ledger = Map.of();
    byRolloutAcknowledged = false;
    placedByRollout = false;
    refusedGrown = false;
    releasedAgain = false;
    unseenApproved = false;
    behindAfterFailover = false;
    int policyFrom = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(200) : Integer.MAX_VALUE;
    // Under exactly_once_v2 (the default; two runs in three) a step's state and approvals commit
    // together; under at_least_once a step's approvals may go out while its state is lost, and the
    // next step counts them only once the requests view shows them.
    boolean exactlyOnce = rnd.nextInt(3) != 0;
    // Two instances, each with its own global views: a tick behind the truth, and now and then
    // (under exactly_once_v2) stalled for some ticks (the global store's thread held up: up to 9 s
    // late in the 100,000-VM benchmark), then caught up at once. An instance's views never go
    // back; the rollouts task's can, when an instance dies and its task moves to the other one.
    // (Under at_least_once, views that lag the lost step's requests let the next step release
    // into the same group: the promise holds under exactly_once_v2 only, as docs/fleet.md says.)
    int[] viewed = new int[2];
    int[] stall = new int[2];
    int active = 0;
    for (int tick = 1; tick <= 400; tick++) {
      Instant now = T0.plusSeconds(tick);
      for (int i = 0; i < 2; i++) {
        if (stall[i] > 0) {
          stall[i]--;
        } else {
          viewed[i] = tick - 1;
          if (rnd.nextInt(15) == 0 && exactlyOnce) {
            stall[i] = 2 + rnd.nextInt(9);
          }
        }
      }
      behindAfterFailover |= viewed[active] < viewed[1 - active] - 1;
      for (Rollout r : starting.getOrDefault(tick, List.of())) {
        committed.put(r.id(), r);
      }
      sim.advance(tick);
      World view = sim.view(viewed[active]);
      sim.sawDue(view, tick);
      Ledger first = new Ledger(ledger);
      first.observe(view, now);
      committed.values().forEach(first::constrain);
      List<String> released = new ArrayList<>();
      // The VMs each release's commands name (their resources claim): the ledger's count of it.
      Map<String, List<String>> counted = new HashMap<>();
      // A rollout's release's request (an agent's refusal names it).
      Map<String, String> requestIds = new HashMap<>();
      // Released through Azure's Maintenance API too (fleet.acknowledge.enabled): VMs without an
      // agent acknowledged for.
      java.util.Set<String> acknowledged = new java.util.HashSet<>();
      int seen = viewed[active];
      // The oldest views a release of this tick was decided on: what the fleet's inputs said then
      // of a VM's group and a group's size is what it could go by.
      int[] decidedOn = {seen};
      // The views each release's check read (their tick), where not the step's own: the groups it
      // met are those they gave its VMs.
      Map<String, Integer> decidedBy = new HashMap<>();
      // An operator's approval and a policy's, through the gate the rollout processor runs.
      boolean operator = rnd.nextInt(12) == 0;
      if (operator) {
        // An operator's approval that reaches an instance whose views are some ticks behind (a
        // failover's restore) while the API's instance showed the event (the truth a tick ago):
        // the VMs with an agent it listed then, named by vmId.
        int t = tick;
        int behindTick = Math.max(0, tick - 2 - rnd.nextInt(10));
        World behind = sim.view(behindTick);
        sim.randomUnseenEvent(rnd, behind, tick - 1)
            .ifPresent(
                e -> {
                  ApprovalRequest out =
                      dev.sebridge.fleet.streams.OperatorApproval.decide(
                          new ApprovalRequest(
                              "op-" + t,
                              e,
                              sim.reportingMembers(e, t - 1),
                              "op",
                              "alice",
                              now,
                              "api"),
                          first,
                          behind,
                          now);
                  if (out.wasAdmitted() && out.refusal() == null) {
                    released.add(e);
                    counted.put(e, out.counted() == null ? List.of() : out.counted());
                    unseenApproved = true;
                    decidedOn[0] = Math.min(decidedOn[0], behindTick);
                    decidedBy.put(e, behindTick);
                  }
                });
      }
      // The service decides an operator's approval with a ledger of its own, read from the store:
      // what it counted of its own (older) views is not what the step counts of the step's. The
      // limits its check met are recorded with it (RolloutProcessor.approve).
      Map<String, Rollout> start = new TreeMap<>();
      committed.forEach((id, r) -> start.put(id, first.recorded(r)));
      Ledger l = first.copy();
      start.values().forEach(l::constrain);
      if (!operator && rnd.nextInt(6) == 0) {
        sim.randomOpenEvent(rnd, view)
            .ifPresent(
                e -> {
                  if (admit(l, view, e, "api", now, released, counted)
                      && sim.acknowledgeable(e, view, seen)) {
                    acknowledged.add(e);
                  }
                });
      }
      if (tick >= policyFrom) {
        for (String e : view.openEvents()) {
          // A policy acknowledges the VMs without a live agent as the API does.
          if (admit(l, view, e, "policy:approve-all@v1", now, released, counted)
              && sim.acknowledgeable(e, view, seen)) {
            acknowledged.add(e);
          }
        }
      }
      Map<String, Rollout> next = new TreeMap<>();
      for (Rollout r : start.values()) {
        RolloutPlanner.Step s = RolloutPlanner.step(r, view, l, now);
        next.put(r.id(), s.rollout());
        for (RolloutPlanner.Release x : s.releases()) {
          released.add(x.eventId());
          counted.put(x.eventId(), x.counted());
          requestIds.put(x.eventId(), x.requestId());
          releasedAgain |= !x.requestId().equals(RolloutPlanner.requestId(r.id(), x.eventId()));
          if (!x.acknowledge().isEmpty()) {
            acknowledged.add(x.eventId()); // VMs without a report, through the Maintenance API
            byRolloutAcknowledged = true;
          }
          placedByRollout |= !x.placed().isEmpty();
        }
      }
      // Each with the limits the tick's checks met recorded, as the rollout processor saves it.
      next.replaceAll((id, r) -> l.recorded(r));
      int crash = rnd.nextInt(12);
      if (crash <= 1) {
        active = 1 - active; // the next step runs on the other instance, with its views
      }
      if (crash == 0 || (crash == 1 && exactlyOnce)) {
        continue; // the instance died before its commit: nothing of the step stands
      }
      java.util.Set<String> newlyDown = new java.util.TreeSet<>();
      Map<String, Integer> checkedAt = new HashMap<>(); // a VM released: the views its check read
      for (String e : released) {
        Sim.Event ev = sim.events.get(e);
        refusedGrown |=
            ev != null
                && !counted.getOrDefault(e, List.of()).isEmpty()
                && !counted.get(e).containsAll(ev.members(tick));
        for (String vm :
            sim.approve(
                e,
                tick,
                acknowledged.contains(e),
                counted.getOrDefault(e, List.of()),
                requestIds.get(e))) {
          newlyDown.add(vm);
          checkedAt.merge(vm, decidedBy.getOrDefault(e, seen), Math::max);
        }
      }
      // Judged in every group a release touched (what was down before a rollout started is not
      // a release it allowed), against every rollout active when the tick's releases were
      // decided: one that completed in this tick before another's release no longer binds it.
      sim.stepViews = seen;
      sim.assertWithinLimits(next.values(), tick, decidedOn[0], newlyDown);
      if (crash == 1) {
        continue; // at_least_once: the approvals went out, the step's state did not
      }
      committed = next;
      ledger = Map.copyOf(l.entries());
      sim.committed(tick, seen, committed.values());
      sim.checkedIn(committed.values(), checkedAt, tick);
      for (Map.Entry<String, Rollout> e : committed.entrySet()) {
        if (rnd.nextInt(3) == 0) {
          e.setValue(operator(e.getValue(), rnd, now));
        }
      }
    }
  }

  // What a world exercised: a rollout released VMs the inventory placed, and acknowledged for
  // them. The property must see both, or its worlds stopped holding what it is about.
  private boolean byRolloutAcknowledged;
  private boolean placedByRollout;
  private boolean refusedGrown;
  private boolean releasedAgain;
  private boolean unseenApproved;
  private boolean behindAfterFailover;

  private void statistics() {
    net.jqwik.api.statistics.Statistics.label("rollout released placed VMs")
        .collect(placedByRollout);
    net.jqwik.api.statistics.Statistics.label("rollout acknowledged")
        .collect(byRolloutAcknowledged);
    net.jqwik.api.statistics.Statistics.label("agent refused an event Azure had grown")
        .collect(refusedGrown);
    net.jqwik.api.statistics.Statistics.label("rollout released a refused event again")
        .collect(releasedAgain);
    net.jqwik.api.statistics.Statistics.label("operator approved an event the view did not show")
        .collect(unseenApproved);
    net.jqwik.api.statistics.Statistics.label("rollouts task moved to views further behind")
        .collect(behindAfterFailover);
  }

  private static boolean admit(
      Ledger l,
      World w,
      String eventId,
      String origin,
      Instant now,
      List<String> released,
      Map<String, List<String>> counted) {
    if (l.holder(eventId).isEmpty() && l.refusal(eventId, w, now).isEmpty()) {
      l.release(eventId, w, origin, now);
      released.add(eventId);
      counted.put(eventId, ListedVms.counted(eventId, w)); // as OperatorApproval and PolicyPass
      return true;
    }
    return false;
  }

  /** Resumes, skips a pending VM (its whole event) or skips the halting event. */
  private static Rollout operator(Rollout r, Random rnd, Instant now) {
    RolloutCommand c = null;
    List<RolloutVm> pending =
        r.vms().values().stream().filter(v -> v.phase().equals(RolloutVm.PENDING)).toList();
    int choice = rnd.nextInt(10);
    if (r.halt() != null && choice < 4) {
      c =
          new RolloutCommand(
              r.id(), RolloutCommand.RESUME, null, null, null, "op", "bob", now, null);
    } else if (r.halt() != null && choice < 6 && r.halt().eventId() != null) {
      c =
          new RolloutCommand(
              r.id(), RolloutCommand.SKIP, null, null, r.halt().eventId(), "op", "bob", now, null);
    } else if (choice == 6 && !pending.isEmpty()) {
      String vm = pending.get(rnd.nextInt(pending.size())).vmId();
      c = new RolloutCommand(r.id(), RolloutCommand.SKIP, null, vm, null, "op", "bob", now, null);
    }
    return c == null ? r : RolloutActions.apply(r, c, now);
  }

  @Provide
  Arbitrary<Long> seed() {
    return Arbitraries.longs();
  }

  /** The simulated fleet: the truth, and the service's views of it as of a tick. */
  static final class Sim {
    final Map<String, Vm> vms = new LinkedHashMap<>();
    final Map<String, Event> events = new LinkedHashMap<>();
    final int zones;

    /** Agents' refusals as resources-changed: by request, each VM's and when. */
    final Map<String, Map<String, Integer>> refusals = new HashMap<>();

    /** The VMs each refused request counted. */
    final Map<String, List<String>> refusedCounted = new HashMap<>();

    /** Whether the fleet releases VMs without an agent through Azure's Maintenance API. */
    final boolean acknowledging;

    /**
     * Azure's inventory (fleet.inventory.*), in half the runs: most VMs in the resource group
     * {@link #SCOPE}, some missing (created since its last refresh), and some names borne by a
     * second VM in another resource group and zone. The service places a VM an event lists by name
     * with it, as it does (the product's {@code InventoryPlaces}); the truth is each VM's real
     * zone.
     */
    final dev.sebridge.fleet.inventory.InventoryPlaces inventory;

    static final String SCOPE = "/subscriptions/s/resourcegroups/main";

    static final class Vm {
      String id;
      String zone;
      boolean agent;
      int reportDelay;
      int startDelay;
      int duration;
      boolean stuck;
      boolean silentAfter;
      boolean rejects;
      boolean guessesCanceled;
      int heartbeatDelay;
      int scaledInAt = Integer.MAX_VALUE;

      /** When its move to resource group {@link #MOVED_TO} shows in the fleet's inputs, if ever. */
      int movedAt = Integer.MAX_VALUE;

      /**
       * Its agent spells its resource group in upper case (Azure's Compute often does; an old and a
       * new instance of one scale set can differ): the same group as the others' lower case.
       */
      boolean shouts;

      /** Azure's inventory spells its resource group in upper case (its own answer, not IMDS's). */
      boolean inventoryShouts;
    }

    static final String MOVED_TO = "moved";

    static final class Event {
      String id;
      int at;
      List<String> members;
      Integer notBefore;

      /** Ticks Azure's central delivery lags the truth; null: never delivered. */
      Integer centralDelay;

      /** A VM Azure adds to its Resources at {@link #growsAt} if it is not released by then. */
      String grows;

      int growsAt = Integer.MAX_VALUE;

      /** When Azure added {@link #grows} to it (the truth), if it did. */
      int grewAt = Integer.MAX_VALUE;

      /**
       * Ticks until an agent's report of the event shows the VM added to its Resources (agents see
       * it on their next poll and report it through their outboxes): the views' lag.
       */
      int growthReported;

      /** The VMs its Resources list as the views show them at {@code tick}. */
      List<String> reportedMembers(int tick) {
        return grewAt != Integer.MAX_VALUE && tick >= grewAt + growthReported
            ? members(tick)
            : members;
      }

      /** The VMs its Resources list at {@code tick}. */
      List<String> members(int tick) {
        if (tick < grewAt) {
          return members;
        }
        List<String> all = new ArrayList<>(members);
        all.add(grows);
        return all;
      }

      /** When the VM joined it. */
      int joined(String vm) {
        return vm.equals(grows) && !members.contains(vm) ? grewAt : at;
      }

      final Map<String, Release> released = new HashMap<>();
    }

    /**
     * When a step that committed first saw each event open with its NotBefore passed (its views are
     * the tick before's), from {@link #sawDue} and {@link #committed}.
     */
    final Map<String, Integer> dueSeen = new HashMap<>();

    /** The events the step of this tick saw due for the first time (until it commits). */
    final java.util.Set<String> dueNow = new java.util.HashSet<>();

    /**
     * Notes the events the step of {@code tick} can see past their NotBefore: open in its views
     * (the tick before's), NotBefore at or before its time. Azure starts such an event then, for
     * every VM it lists, approved or not; from then the fleet can count them.
     */
    void sawDue(World view, int tick) {
      dueNow.clear();
      for (Event e : events.values()) {
        if (e.notBefore != null
            && e.notBefore <= tick
            && !dueSeen.containsKey(e.id)
            && view.open(e.id)) {
          dueNow.add(e.id);
        }
      }
    }

    /**
     * The step of {@code tick} committed: what it saw due the fleet knows from now on. (A step that
     * died saw it for its own decisions only: an event that closed before any step that committed
     * saw it due is one the fleet could not keep.)
     */
    void committed(int tick, int viewedAt, Collection<Rollout> rollouts) {
      dueNow.forEach(id -> dueSeen.putIfAbsent(id, tick));
      dueNow.clear();
      committedViews.put(tick, viewedAt);
      freshestCommitted = Math.max(freshestCommitted, viewedAt);
      for (Rollout r : rollouts) {
        r.groupLimits().keySet().forEach(g -> recordedSince.putIfAbsent(r.id() + "|" + g, tick));
      }
    }

    /**
     * A committed step released these VMs: each active rollout's limit for their groups was checked
     * (every rollout's limits bind every release, in groups it has no VM in too), and stands from
     * then on as a recorded one does. Taken from what the world released, not from the rollouts'
     * records: until 2026-11-29 the product recorded only the groups of a rollout's own VMs, and a
     * failover to views from before such a group shrank took the larger limit.
     */
    void checkedIn(Collection<Rollout> rollouts, Map<String, Integer> released, int tick) {
      // (each VM in its group as the views its release's check read gave it: another group the
      // product never checked is not held to a limit it could not know)
      for (Rollout r : rollouts) {
        if (r.active()) {
          released.forEach(
              (id, viewedAt) ->
                  recordedSince.putIfAbsent(r.id() + "|" + group(r, vms.get(id), viewedAt), tick));
        }
      }
    }

    /** The freshest views a committed step decided on (their tick). */
    int freshestCommitted;

    /** The views this tick's step reads (their tick): set before a tick's releases are judged. */
    int stepViews;

    /** Each committed step's tick, and the tick of the views it decided on. */
    final TreeMap<Integer, Integer> committedViews = new TreeMap<>();

    /**
     * From which committed step a rollout has a group's limit recorded ({@code
     * <rolloutId>|<group>}): from then on, what any committed step's views showed of the group's
     * size stands (a recorded limit only goes down).
     */
    final Map<String, Integer> recordedSince = new HashMap<>();

    /**
     * Whether a release counts against the limits at {@code tick}: the fleet's own, and Azure's at
     * NotBefore once the fleet's inputs showed the event due (before that nothing could know).
     */
    boolean counts(Event e, Release rel, int tick) {
      Integer seen = dueSeen.get(e.id);
      return rel.byFleet() || (seen != null && seen <= tick) || dueNow.contains(e.id);
    }

    /**
     * As {@link #counts}, for one VM: a VM Azure added to the event is started at NotBefore with
     * the others, but the fleet's inputs tell it is in the event only once an agent's report shows
     * it ({@link Event#reportedMembers}): before views of then (this tick's, or a committed
     * step's), nothing could count it. Until 2026-11-29 the truth counted it from NotBefore, and a
     * seed drew a rollout releasing, again, two VMs already down in a group a grown event's
     * NotBefore had put over its limit with a VM no view listed (3442228, red at 64cdd82 too).
     */
    boolean counts(Event e, Vm v, Release rel, int tick, int decidedOn) {
      // (the step's own views observed what they listed, whoever else decided on older ones)
      if (!counts(e, rel, tick)) {
        return false;
      }
      if (rel.byFleet() || !v.id.equals(e.grows) || e.members.contains(v.id)) {
        return true;
      }
      int known = Math.max(Math.max(decidedOn, stepViews), freshestCommitted);
      return e.reportedMembers(known).contains(v.id);
    }

    /** IMDS released this VM for this event at {@code at}; {@code byFleet}: an approval did. */
    record Release(int at, boolean byFleet) {}

    Sim(Random rnd) {
      zones = 1 + rnd.nextInt(3);
      acknowledging = rnd.nextBoolean();
      inventory = rnd.nextBoolean() ? new dev.sebridge.fleet.inventory.InventoryPlaces() : null;
      int n = 4 + rnd.nextInt(27);
      for (int i = 0; i < n; i++) {
        Vm v = new Vm();
        v.id = "vm-" + i;
        v.zone = Integer.toString(1 + rnd.nextInt(zones));
        v.agent = rnd.nextInt(10) != 0;
        v.reportDelay = rnd.nextInt(8) == 0 ? 10 + rnd.nextInt(30) : rnd.nextInt(3);
        // Azure starts most approved events at once, some after the host's other tenants.
        v.startDelay = rnd.nextInt(6) == 0 ? 5 + rnd.nextInt(15) : 1 + rnd.nextInt(4);
        v.duration = 1 + rnd.nextInt(10);
        v.stuck = rnd.nextInt(30) == 0;
        v.silentAfter = rnd.nextInt(30) == 0;
        v.rejects = rnd.nextInt(20) == 0;
        // its agent restarts during the reboot and reports the event it missed as canceled
        v.guessesCanceled = rnd.nextInt(8) == 0;
        v.heartbeatDelay = rnd.nextInt(4);
        if (rnd.nextInt(8) == 0) {
          v.scaledInAt = 20 + rnd.nextInt(300); // an idle instance removed by autoscale
        }
        if (rnd.nextInt(3) == 0) {
          v.movedAt = 1 + rnd.nextInt(60); // an operator moves it to another resource group
        }
        v.shouts = rnd.nextInt(3) == 0;
        v.inventoryShouts = rnd.nextInt(3) == 0;
        vms.put(v.id, v);
        if (inventory != null) {
          if (rnd.nextInt(4) != 0) {
            inventory.moved(v.id, place(v.id, SCOPE, v.zone, spelt("main", v.inventoryShouts)));
          }
          if (rnd.nextInt(3) == 0) {
            // a namesake in another resource group and zone
            String zone = Integer.toString(Integer.parseInt(v.zone) % Math.max(2, zones) + 1);
            inventory.moved(
                "other-" + v.id,
                place(v.id, "/subscriptions/s/resourcegroups/other", zone, "other"));
          }
        }
      }
      // Idle instances get scaled in; those with maintenance stay.
      List<String> ids =
          vms.values().stream()
              .filter(v -> v.scaledInAt == Integer.MAX_VALUE)
              .map(v -> v.id)
              .toList();
      int count = ids.isEmpty() ? 0 : 3 + rnd.nextInt(12);
      for (int k = 0; k < count; k++) {
        Event e = new Event();
        e.id = "ev-" + k;
        e.at = rnd.nextInt(60);
        List<String> members = new ArrayList<>();
        int size = Math.min(ids.size(), 1 + (rnd.nextInt(3) == 0 ? rnd.nextInt(3) : 0));
        while (members.size() < size) {
          String vm = ids.get(rnd.nextInt(ids.size()));
          if (!members.contains(vm)) {
            members.add(vm);
          }
        }
        e.members = members; // a VM may be in several events: its repeat maintenance
        if (rnd.nextInt(5) == 0) {
          e.notBefore = e.at + 20 + rnd.nextInt(150);
        }
        if (rnd.nextInt(3) != 0) {
          e.centralDelay = rnd.nextInt(4) == 0 ? 10 + rnd.nextInt(20) : rnd.nextInt(3);
        }
        // Azure lists one more VM in it later. Not where the fleet acknowledges through the
        // Maintenance API: that API takes no list of VMs to hold an acknowledgement to, and a VM
        // Azure adds after the fleet's decision is released with the others (docs/fleet.md, what
        // the guarantee does not cover).
        if (!acknowledging) {
          String more = ids.get(rnd.nextInt(ids.size()));
          if (!members.contains(more)) {
            e.grows = more;
            e.growsAt = e.at + 1 + rnd.nextInt(12);
            e.growthReported = rnd.nextBoolean() ? 5 + rnd.nextInt(15) : rnd.nextInt(3);
          }
        }
        events.put(e.id, e);
      }
    }

    private static dev.sebridge.fleet.inventory.InventoryPlaces.Place place(
        String name, String scope, String zone, String resourceGroup) {
      // every VM of the simulated fleet is in availability set "as" of its resource group
      return new dev.sebridge.fleet.inventory.InventoryPlaces.Place(
          name, scope, zone, null, "as", resourceGroup, null, false);
    }

    /** A resource group's name as one of Azure's answers spells it. */
    static String spelt(String resourceGroup, boolean shouts) {
      return shouts ? resourceGroup.toUpperCase(java.util.Locale.ROOT) : resourceGroup;
    }

    /** The VM's resource group at {@code tick}. */
    static String resourceGroup(Vm v, int tick) {
      return tick >= v.movedAt ? MOVED_TO : "main";
    }

    /**
     * Its resource group as the fleet's inputs tell it at {@code tick}: Azure's inventory at once
     * where it lists the VM, else its agent's last envelope (a VM down sends none), else the truth
     * (a VM without an agent or inventory is counted by name, in every group).
     */
    String resourceGroupTold(Vm v, int tick) {
      if (inventory != null && inventory.place(v.id) != null) {
        return resourceGroup(v, tick);
      }
      return v.agent ? resourceGroup(v, lastHeard(v, tick)) : resourceGroup(v, tick);
    }

    /** The last tick at or before {@code tick} its agent was heard from (0: none before). */
    int lastHeard(Vm v, int tick) {
      for (int t = tick; t >= 0; t--) {
        if (heard(v, t)) {
          return t;
        }
      }
      return 0;
    }

    /** Its agent heartbeats unless one of its events has it down and not back. */
    boolean heard(Vm v, int t) {
      for (Event e : events.values()) {
        Release rel = e.released.get(v.id);
        if (rel != null && rel.at() <= t && t >= startAt(v, rel)) {
          Integer back = backAt(v, rel);
          if (back == null || t < back) {
            return false;
          }
        }
      }
      return true;
    }

    Rollout newRollout(Random rnd, String id) {
      List<String> ids = new ArrayList<>();
      for (String e : events.keySet()) {
        if (rnd.nextInt(10) < 6) {
          ids.add(e);
        }
      }
      if (ids.isEmpty()) {
        ids.add(events.isEmpty() ? "no-such-event" : events.keySet().iterator().next());
      }
      String max =
          switch (rnd.nextInt(4)) {
            case 0 -> "1";
            case 1 -> Integer.toString(1 + rnd.nextInt(3));
            case 2 -> (20 + rnd.nextInt(61)) + "%";
            default -> "100%";
          };
      RolloutSpec spec =
          new RolloutSpec(
              ids,
              max,
              switch (rnd.nextInt(3)) {
                case 0 -> List.of("zone");
                case 1 -> List.of("resourceGroup");
                default -> List.of();
              },
              Duration.ofSeconds(rnd.nextInt(4)),
              Duration.ofSeconds(10 + rnd.nextInt(40)),
              Duration.ofSeconds(3 + rnd.nextInt(20)));
      return RolloutActions.apply(
          null,
          new RolloutCommand(
              id, RolloutCommand.CREATE, spec, null, null, "test", "alice", T0, "api"),
          T0);
    }

    /**
     * NotBefore passing releases an event without anyone's approval; a VM moved shows in Azure's
     * inventory (its place's scope, which events are matched by, stays: its availability set's).
     */
    void advance(int tick) {
      for (Vm v : vms.values()) {
        // (the step of this tick reads the views as of the tick before: the move shows in it)
        if (v.movedAt == tick - 1 && inventory != null && inventory.place(v.id) != null) {
          inventory.moved(v.id, place(v.id, SCOPE, v.zone, spelt(MOVED_TO, v.inventoryShouts)));
        }
      }
      for (Event e : events.values()) {
        if (e.growsAt == tick && e.released.isEmpty()) {
          e.grewAt = tick; // before any approval of this tick: no view shows it yet
        }
        if (e.notBefore != null && e.notBefore == tick) {
          release(e, tick, false);
        }
      }
    }

    /**
     * The fleet's approval: IMDS releases the event for every VM it lists if any agent posts, and
     * so does Azure when the fleet acknowledged it through the Maintenance API (the ARM id it needs
     * came with Azure's central delivery). An agent posts only if the event's Resources, as IMDS
     * lists them now, are among the VMs its command names ({@code counted}, its resources claim;
     * none named: not checked). Returns the VMs it made unavailable that were not already.
     */
    List<String> approve(
        String eventId, int tick, boolean acknowledged, List<String> counted, String requestId) {
      Event e = events.get(eventId);
      boolean within = counted.isEmpty() || counted.containsAll(e.members(tick));
      if (!within && requestId != null) {
        // Each agent commanded refuses as resources-changed; the views have its result a step on.
        for (String vm : e.members(tick - 1)) {
          Vm v = vms.get(vm);
          if (v.agent && reported(v, e, tick - 1)) {
            refusals.computeIfAbsent(requestId, k -> new HashMap<>()).put(vm, tick);
          }
        }
        refusedCounted.put(requestId, List.copyOf(counted));
      }
      boolean posted =
          (within
                  && e.members(tick - 1).stream()
                      .map(vms::get)
                      .anyMatch(v -> v.agent && !v.rejects && reported(v, e, tick - 1)))
              || (acknowledged && e.centralDelay != null && tick - 1 >= e.at + e.centralDelay);
      List<String> added = new ArrayList<>();
      if (posted) {
        for (String vm : e.members(tick)) {
          if (!e.released.containsKey(vm)) {
            added.add(vm);
          }
        }
        release(e, tick, true);
      }
      return added;
    }

    private void release(Event e, int tick, boolean byFleet) {
      for (String vm : e.members(tick)) {
        e.released.putIfAbsent(vm, new Release(tick, byFleet));
      }
    }

    int startAt(Vm v, Release r) {
      return r.at() + v.startDelay;
    }

    Integer completeAt(Vm v, Release r) {
      return v.stuck ? null : startAt(v, r) + v.duration;
    }

    /** When its agent is heard from after the event (null: never). */
    Integer backAt(Vm v, Release r) {
      Integer c = completeAt(v, r);
      return c == null || v.silentAfter || !v.agent ? null : c + v.heartbeatDelay;
    }

    boolean reported(Vm v, Event e, int tick) {
      return v.agent && tick >= e.joined(v.id) + v.reportDelay;
    }

    /**
     * The truth, after the fleet released {@code released} at {@code tick}: for every rollout
     * active then, in every group the release touched, the VMs the fleet's approvals released, and
     * those Azure started at NotBefore for an event the fleet's inputs showed due ({@link
     * #counts}), that are not back (heard from after their event, and the rollout's settle passed),
     * by real group, are at most the rollout's limit for that group's real size. A VM's group is
     * the one it is in when the release is decided (the tick before), from when the fleet's inputs
     * tell a move ({@link #resourceGroupTold}).
     */
    void assertWithinLimits(
        Collection<Rollout> rollouts, int tick, int decidedOn, Collection<String> released) {
      for (Rollout r : rollouts) {
        if (!r.active() || released.isEmpty()) {
          continue;
        }
        java.util.Set<String> touched = new java.util.TreeSet<>();
        released.forEach(id -> touched.add(group(r, vms.get(id), decidedOn)));
        long settle = r.spec().settle().toSeconds();
        Map<String, Integer> down = new TreeMap<>();
        List<String> who = new ArrayList<>();
        for (Vm v : vms.values()) {
          java.util.Set<String> groups = new java.util.TreeSet<>();
          for (Event e : events.values()) {
            Release rel = e.released.get(v.id);
            if (rel != null && counts(e, v, rel, tick, decidedOn) && rel.at() <= tick) {
              Integer back = backAt(v, rel);
              if (back == null || tick < back + settle) {
                groups.add(group(r, v, decidedOn));
              }
            }
          }
          groups.retainAll(touched);
          for (String g : groups) {
            down.merge(g, 1, Integer::sum);
          }
          if (!groups.isEmpty()) {
            for (Event e : events.values()) {
              Release rel = e.released.get(v.id);
              if (rel != null && counts(e, v, rel, tick, decidedOn)) {
                who.add(
                    v.id
                        + "/"
                        + e.id
                        + "@"
                        + rel.at()
                        + (rel.byFleet() ? "" : "(NotBefore)")
                        + (v.agent ? "" : "(no agent)"));
              }
            }
          }
        }
        down.forEach(
            (g, n) ->
                assertThat(n)
                    .as(
                        "tick %d: VMs of %s the fleet made unavailable, under rollout %s (%s of"
                            + " %s): %s",
                        tick, g, r.id(), r.spec().maxUnavailable(), r.spec().groupBy(), who)
                    .isLessThanOrEqualTo(limit(r, g, decidedOn)));
      }
    }

    private String group(Rollout r, Vm v, int tick) {
      return group(r.spec().groupBy(), v, tick);
    }

    /** The VM's group under a groupBy at {@code tick}, as the product names groups. */
    String group(List<String> groupBy, Vm v, int tick) {
      if (groupBy.isEmpty()) {
        return "all";
      }
      return groupBy.get(0).equals("zone")
          ? "zone=" + v.zone
          : "resourceGroup=" + resourceGroupTold(v, tick);
    }

    /**
     * The rollout's limit for a group: of its real size as the inputs stood when the deciding views
     * were taken, and, once the rollout has the group's limit recorded, of its size at every
     * committed step's views since, the smallest (a recorded limit only goes down: a step on views
     * further behind does not raise it).
     */
    private int limit(Rollout r, String g, int decidedOn) {
      int limit = r.spec().limit(Math.max(1, size(r, g, decidedOn)));
      Integer since = recordedSince.get(r.id() + "|" + g);
      if (since != null) {
        for (int t : committedViews.tailMap(since, true).values()) {
          limit = Math.min(limit, r.spec().limit(Math.max(1, size(r, g, t))));
        }
      }
      return limit;
    }

    /** How many VMs the group really has (with or without an agent), not scaled in. */
    private int size(Rollout r, String g, int tick) {
      return (int)
          vms.values().stream()
              .filter(v -> v.scaledInAt > tick && group(r, v, tick).equals(g))
              .count();
    }

    /**
     * An event Azure scheduled by {@code tick} that the view does not show yet, with a VM whose
     * agent has it (an approval can reach IMDS).
     */
    Optional<String> randomUnseenEvent(Random rnd, World view, int tick) {
      List<String> unseen =
          events.values().stream()
              .filter(
                  e ->
                      e.at <= tick && !view.viewed(e.id) && !reportingMembers(e.id, tick).isEmpty())
              .map(e -> e.id)
              .toList();
      return unseen.isEmpty()
          ? Optional.empty()
          : Optional.of(unseen.get(rnd.nextInt(unseen.size())));
    }

    /** The VMs an event lists at {@code tick} whose agents have reported it by then. */
    List<String> reportingMembers(String eventId, int tick) {
      Event e = events.get(eventId);
      return e.members(tick).stream().filter(id -> reported(vms.get(id), e, tick)).toList();
    }

    Optional<String> randomOpenEvent(Random rnd, World view) {
      List<String> open = new ArrayList<>(view.openEvents());
      return open.isEmpty() ? Optional.empty() : Optional.of(open.get(rnd.nextInt(open.size())));
    }

    /**
     * Whether Azure's central delivery, {@code centralDelay} behind the truth, has said by {@code
     * tick} that the event started for one of its VMs ({@code completed} false) or completed for
     * all of them ({@code completed} true).
     */
    boolean azureSays(Event e, int tick, boolean completed) {
      if (e.centralDelay == null) {
        return false;
      }
      int by = tick - e.centralDelay;
      if (!completed) {
        return e.released.entrySet().stream()
            .anyMatch(r -> by >= startAt(vms.get(r.getKey()), r.getValue()));
      }
      return e.released.size() == e.members(by).size()
          && e.released.entrySet().stream()
              .allMatch(
                  r -> {
                    Integer c = completeAt(vms.get(r.getKey()), r.getValue());
                    return c != null && by >= c;
                  });
    }

    /** Azure's status of the event as its central delivery says by {@code tick}, or null. */
    dev.sebridge.fleet.agentless.AzureEventStatus statusByAzure(Event e, int tick) {
      if (e.centralDelay == null || tick < e.at + e.centralDelay) {
        return null;
      }
      return azureSays(e, tick, true)
          ? dev.sebridge.fleet.agentless.AzureEventStatus.COMPLETED
          : azureSays(e, tick, false)
              ? dev.sebridge.fleet.agentless.AzureEventStatus.STARTED
              : dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED;
    }

    /**
     * Whether an operator's approval of the event also acknowledges it through Azure's Maintenance
     * API, as the API does: acknowledging is on, Azure delivered the event (its ARM id) and does
     * not say it is over, and it lists VMs that have not reported it.
     */
    boolean acknowledgeable(String eventId, World view, int tick) {
      Event e = events.get(eventId);
      var s = e == null ? null : statusByAzure(e, tick);
      return acknowledging
          && s != null
          && !s.over()
          && !ListedVms.unreported(eventId, view).isEmpty();
    }

    /** What the fleet's views show as of {@code tick}. */
    World view(int tick) {
      Instant at = T0.plusSeconds(tick);
      return new World() {
        @Override
        public Map<String, VmEventState> eventVms(String eventId) {
          Event e = events.get(eventId);
          Map<String, VmEventState> m = new LinkedHashMap<>();
          if (e == null) {
            return m;
          }
          for (String id : e.members(tick)) {
            Vm v = vms.get(id);
            if (!reported(v, e, tick)) {
              continue;
            }
            String status = "scheduled";
            Instant since = T0.plusSeconds(e.at);
            Release rel = e.released.get(id);
            if (rel != null && rel.at() <= tick && tick >= startAt(v, rel)) {
              Integer c = completeAt(v, rel);
              boolean done = c != null && tick >= c;
              status = v.guessesCanceled ? "canceled" : done ? "completed" : "started";
              since = T0.plusSeconds(done ? c : startAt(v, rel));
            }
            m.put(id, new VmEventState(id, id, v.zone, null, status, null, since, null));
          }
          return m;
        }

        @Override
        public List<String> resources(String eventId) {
          Event e = events.get(eventId);
          // as the events view has them: from an agent's report or Azure's central delivery, none
          // before either came (a view behind, after a failover, does not hold the event yet)
          boolean heardOf =
              e != null
                  && tick >= e.at
                  && ((e.centralDelay != null && tick >= e.at + e.centralDelay)
                      || e.members(tick).stream().anyMatch(id -> reported(vms.get(id), e, tick)));
          return heardOf ? e.reportedMembers(tick) : List.of();
        }

        @Override
        public boolean open(String eventId) {
          Map<String, VmEventState> m = eventVms(eventId);
          if (m.isEmpty()) {
            // no agent reported it: open while Azure's delivery says so (as the view keeps it)
            Event e = events.get(eventId);
            return e != null
                && e.centralDelay != null
                && tick >= e.at + e.centralDelay
                && !azureSays(e, tick, true);
          }
          return m.values().stream().anyMatch(s -> !s.closed());
        }

        @Override
        public boolean azureListsFleetVm(String eventId) {
          // every event of this world is of the fleet's VMs: Azure's word names them once
          // delivered
          Event e = events.get(eventId);
          return e != null && e.centralDelay != null && tick >= e.at + e.centralDelay;
        }

        @Override
        public boolean releasedByAzure(String eventId) {
          Event e = events.get(eventId);
          return e != null && azureSays(e, tick, false);
        }

        @Override
        public boolean startedByAzure(String eventId) {
          Event e = events.get(eventId);
          return e != null
              && statusByAzure(e, tick) == dev.sebridge.fleet.agentless.AzureEventStatus.STARTED;
        }

        @Override
        public dev.sebridge.fleet.agentless.AzureEventStatus azureStatus(String eventId) {
          Event e = events.get(eventId);
          return e == null ? null : statusByAzure(e, tick);
        }

        @Override
        public String scheduledEventResource(String eventId) {
          Event e = events.get(eventId);
          return e == null || statusByAzure(e, tick) == null
              ? null
              : "/subscriptions/s/resourceGroups/main/providers/Microsoft.Compute/availabilitySets"
                  + "/as/providers/Microsoft.Maintenance/scheduledevents/"
                  + eventId;
        }

        @Override
        public boolean acknowledges() {
          return acknowledging;
        }

        @Override
        public String placed(String eventId, String name) {
          return inventory == null
              ? null
              : inventory.placed(
                  name,
                  scheduledEventResource(eventId),
                  resources(eventId),
                  eventVms(eventId).values(),
                  this::known);
        }

        @Override
        public Collection<String> openEvents() {
          return events.keySet().stream().filter(this::open).toList();
        }

        @Override
        public Collection<String> requestedEvents() {
          // the fleet's own approvals, as the requests view shows them
          return events.values().stream()
              .filter(
                  e -> e.released.values().stream().anyMatch(r -> r.byFleet() && r.at() <= tick))
              .map(e -> e.id)
              .toList();
        }

        @Override
        public Optional<Instant> notBefore(String eventId) {
          Event e = events.get(eventId);
          return e == null || e.notBefore == null
              ? Optional.empty()
              : Optional.of(T0.plusSeconds(e.notBefore));
        }

        @Override
        public String name(String vmId) {
          Vm v = vms.get(vmId);
          return v == null || !v.agent ? null : vmId; // (a VM's name is its id here)
        }

        @Override
        public Optional<Instant> lastHeartbeat(String vmId) {
          Vm v = vms.get(vmId);
          if (v == null || !v.agent) {
            return Optional.empty();
          }
          for (int t = tick; t >= 0; t--) {
            if (heard(v, t)) {
              return Optional.of(T0.plusSeconds(t));
            }
          }
          return Optional.empty();
        }

        @Override
        public String attribute(String vmId, String attribute) {
          Vm v = vms.get(vmId);
          if (v != null && v.agent) {
            // its view's: where the inventory puts it now if it lists it (the service follows a
            // refresh at once), else as its agent's last envelope gave them (a VM down sends none,
            // and a move shows once it is heard from)
            return switch (attribute) {
              case "zone" -> v.zone;
              case "resourceGroup" ->
                  inventoryLists(vmId)
                      ? spelt(resourceGroupTold(v, tick), v.inventoryShouts)
                      : spelt(resourceGroupTold(v, tick), v.shouts);
              default -> null;
            };
          }
          // Azure's word, for a VM without an agent (and for a namesake)
          return inventoryAttribute(vmId, attribute);
        }

        @Override
        public boolean inventoryLists(String vmId) {
          return inventory != null && inventory.place(vmId) != null;
        }

        @Override
        public String inventoryAttribute(String vmId, String attribute) {
          var p = inventory == null ? null : inventory.place(vmId);
          if (p == null) {
            return null;
          }
          Vm v = vms.get(vmId);
          if (v != null && attribute.equals("resourceGroup")) {
            // As the inventory stood at these views' tick, not as it stands now: views behind show
            // a move once they reach it (advance applies it to the inventory the tick after).
            return spelt(resourceGroup(v, tick), v.inventoryShouts);
          }
          return p.attribute(attribute);
        }

        @Override
        public int groupSize(List<String> groupBy, String group) {
          return (int)
              vms.values().stream()
                  .filter(v -> v.agent && v.scaledInAt > tick)
                  // as the index counts them: by the views' attributes, as the product names groups
                  .filter(
                      v -> group.equals(ListedVms.group(v.id, a -> attribute(v.id, a), groupBy)))
                  .count();
        }

        @Override
        public List<String> refusedCounted(String requestId) {
          Map<String, Integer> by = refusals.get(requestId);
          return by != null && by.values().stream().anyMatch(at -> at <= tick)
              ? refusedCounted.get(requestId)
              : List.of();
        }

        @Override
        public Optional<Result> unaccepted(String requestId, String vmId) {
          Integer refusedAt = refusals.getOrDefault(requestId, Map.of()).get(vmId);
          if (refusedAt != null && refusedAt <= tick) {
            return Optional.of(
                new Result(
                    "rejected",
                    "resources-changed: the event lists a VM not counted",
                    "resources-changed"));
          }
          Vm v = vms.get(vmId);
          boolean released =
              events.values().stream()
                  .anyMatch(e -> e.released.containsKey(vmId) && e.released.get(vmId).byFleet());
          if (v == null || !released) {
            return Optional.empty();
          }
          return v.rejects
              ? Optional.of(new Result("rejected", "policy-denied: not now"))
              : Optional.empty();
        }
      };
    }
  }
}
