package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.RecordedLimits;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutPlanner;
import dev.sebridge.state.CrashPoints;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rollouts and central policies ({@link FleetTopology#ROLLOUT_STATE}, {@link
 * FleetTopology#POLICY_STATE}). The rollouts topic has one partition, so one task on one instance
 * runs them all. Operators' commands arrive on it; every second a punctuation steps each active
 * rollout ({@link RolloutPlanner}) against the global views and decides new events by the policies.
 * Approvals go out as audited requests to the approvals topic, where the request processor signs
 * them. With exactly-once processing the rollout's new state and its approval requests commit
 * together: an instance killed mid-step leaves neither, and its successor steps again from the
 * committed state, so no VM is approved twice and the limit holds across the failover. While the
 * global views are too far behind their topics ({@link ViewsGate}) a tick steps nothing and an
 * operator's approval is refused while a rollout is active ({@link ViewsHold}).
 */
final class RolloutProcessor implements Processor<String, RolloutCommand, String, Object> {
  private static final Logger LOG = LoggerFactory.getLogger(RolloutProcessor.class);

  private final Policies policies;
  private final Duration tick;
  private final Duration history;
  private final TopologyObserver observer;
  private final ViewIndex index;
  private final boolean acknowledges;
  private ProcessorContext<String, Object> context;
  private RolloutStore rollouts;
  private KeyValueStore<String, PolicyDecision> decisions;
  private LedgerStore ledgerStore;
  private GlobalWorld world;
  private PolicyPass policyPass;
  private final RetentionSweep<PolicyDecision> decisionSweep =
      new RetentionSweep<>(RequestProcessor.SWEEP);

  // Since when each event a policy's rollout holds has been missing from the views (retention).
  private final MissingEvents missing = new MissingEvents();
  private final CrashPoints crashPoints;
  private final ReplayGate replayGate;
  private RolloutsReplay replay;
  private final ViewsGate viewsGate;
  private ViewsHold hold; // made anew at each init: a revived task starts not held
  private OperatorApprovals approvals;

  RolloutProcessor(
      Policies policies,
      Duration tick,
      CrashPoints crashPoints,
      ReplayGate replayGate,
      ViewsGate viewsGate,
      Duration history,
      TopologyObserver observer,
      ViewIndex index,
      boolean acknowledges) {
    this.viewsGate = viewsGate;
    this.policies = policies;
    this.acknowledges = acknowledges;
    this.index = index;
    this.observer = observer;
    this.tick = tick;
    this.history = history;
    this.crashPoints = crashPoints;
    this.replayGate = replayGate;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.rollouts =
        new RolloutStore(
            context.getStateStore(FleetTopology.ROLLOUT_STATE),
            context.getStateStore(FleetTopology.ROLLOUT_PARTS_STATE),
            context);
    this.decisions = context.getStateStore(FleetTopology.POLICY_STATE);
    this.ledgerStore = new LedgerStore(context.getStateStore(FleetTopology.LEDGER_STATE));
    this.world =
        new GlobalWorld(
            new ViewIndex.Stores(
                context.getStateStore(FleetTopology.VMS_VIEW),
                context.getStateStore(FleetTopology.EVENTS_VIEW),
                context.getStateStore(FleetTopology.REQUESTS_VIEW),
                index.inventoried() ? context.getStateStore(FleetTopology.INVENTORY_VIEW) : null),
            index,
            acknowledges);
    index.attach();
    this.hold = new ViewsHold(viewsGate, observer);
    this.approvals = new OperatorApprovals(world, ledgerStore, rollouts, hold);
    this.policyPass =
        new PolicyPass(
            policies,
            world,
            rollouts,
            decisions,
            new PolicyPass.Outputs() {
              @Override
              public void approve(String requestId, ApprovalRequest admitted) {
                emit(requestId, admitted, FleetTopology.APPROVALS_SINK);
              }

              @Override
              public void decided(String key, PolicyDecision d) {
                context.forward(
                    new Record<String, Object>(key, d, context.currentSystemTimeMs()),
                    FleetTopology.POLICIES_VIEW_SINK);
              }

              @Override
              public void save(Rollout r) {
                RolloutProcessor.this.save(r);
              }

              @Override
              public Instant now() {
                return RolloutProcessor.this.now();
              }
            });
    context.schedule(tick, PunctuationType.WALL_CLOCK_TIME, this::tick);
    context.schedule(Retention.CHECK, PunctuationType.WALL_CLOCK_TIME, this::forgetOld);
    this.replay = new RolloutsReplay(replayGate.start(), observer);
    caughtUp();
  }

  /** Whether the task caught up with the rollouts topic ({@link RolloutsReplay}). */
  private boolean caughtUp() {
    return replay.caughtUp();
  }

  @Override
  public void close() {
    observer.rolloutsReplaying(false); // the task left this instance
    observer.rolloutsHeld(false);
    index.detach();
  }

  @Override
  public void process(Record<String, RolloutCommand> record) {
    RolloutCommand c = record.value();
    if (c == null || c.rolloutId() == null || c.action() == null) {
      return;
    }
    if (c.action().equals(RolloutCommand.APPROVE)) {
      if (c.approval() != null) {
        approve(c.approval());
      }
      return;
    }
    RolloutCommands.apply(rollouts, c, now());
  }

  private void tick(long wallClock) {
    pending.clear(); // what a tick that threw had queued is not sent by a later one
    if (!caughtUp()) {
      return;
    }
    if (hold.holds()) {
      // Nothing stepped or released; the ledger still takes in what the views show (a NotBefore
      // moved, an event over), as it would at the next step.
      world.newStep(now());
      ledgerStore.persist(ledgerStore.current(world, now(), List.of()));
      return;
    }
    long start = System.nanoTime();
    try {
      step();
    } finally { // a tick that failed counts too: often the slowest
      observer.rolloutsTicked(Duration.ofNanos(System.nanoTime() - start));
    }
  }

  /** Every active rollout stepped, and the policies' pass, against one ledger. */
  private void step() {
    world.newStep(now());
    Ledger ledger = ledgerStore.current(world, now(), activeRollouts());
    policyPass.decide(ledger);
    // Read again: the policies may have added an event to a rollout, or started one; stepping the
    // copy from before would save over it and drop that event.
    List<Rollout> active = activeRollouts();
    active.forEach(ledger::constrain);
    List<Map.Entry<Rollout, RolloutPlanner.Step>> steps = new ArrayList<>();
    for (Rollout r : active) {
      try {
        steps.add(Map.entry(r, RolloutPlanner.step(r, world, ledger, now())));
      } catch (RuntimeException e) {
        // One rollout the planner cannot step (a bad record) releases nothing, and only its
        // limits move (lowered as a step would: they bind every release); the others go on.
        // What the planner recorded for it in the ledger stays: an over-count, never an
        // under-count.
        LOG.error("rollout {}: cannot step it; it releases nothing", r.id(), e);
        steps.add(Map.entry(r, new RolloutPlanner.Step(lowered(r), List.of())));
      }
    }
    // The ledger first: an approval is never out while the ledger does not count it.
    ledgerStore.persist(ledger);
    // Each rollout with the limits this tick's checks met recorded (the policies', the other
    // rollouts', its own), committed with the releases they admitted.
    steps.forEach(
        e ->
            step(
                e.getKey(),
                new RolloutPlanner.Step(
                    ledger.recorded(e.getValue().rollout()), e.getValue().releases())));
    flush();
  }

  /**
   * A rollout the planner cannot step, with its recorded limits lowered as a step would (its limits
   * bind every release all the same); as it is when not even that can be done.
   */
  private Rollout lowered(Rollout r) {
    try {
      return RecordedLimits.lowered(r, world);
    } catch (RuntimeException e) {
      return r;
    }
  }

  /** The retention rules of the rollouts and decisions ({@link RolloutRetention}). */
  private void forgetOld(long wallClock) {
    if (!caughtUp()) {
      return;
    }
    world.newStep(now());
    try {
      RolloutRetention.apply(
          rollouts,
          decisions,
          decisionSweep,
          world,
          history,
          policies.version(),
          missing,
          context,
          this::save);
    } catch (RuntimeException e) {
      // A record the rule cannot read: kept (a store over its size, never a stopped thread).
      LOG.error("rollouts: retention could not run; tried again in {}", Retention.CHECK, e);
    }
  }

  // Approvals decided in this tick, forwarded once the ledger that admitted them is written.
  private record Pending(Record<String, Object> record, String sink) {}

  private final List<Pending> pending = new ArrayList<>();

  private void emit(String key, Object value, String sink) {
    pending.add(new Pending(new Record<>(key, value, context.currentSystemTimeMs()), sink));
  }

  private void flush() {
    pending.forEach(p -> context.forward(p.record(), p.sink()));
    pending.clear();
  }

  private List<Rollout> activeRollouts() {
    return rollouts.active();
  }

  /**
   * An operator's approval (API, page): refused when an active rollout holds the event or when it
   * would put a group over an active rollout's limit, unless the operator overrides; either way it
   * goes to the audit topic, where the request processor sends commands only for an accepted one
   * ({@link OperatorApprovals}).
   */
  private void approve(ApprovalRequest r) {
    ApprovalRequest out = approvals.decide(r, now());
    if (out == null) {
      LOG.debug("approval request {} was decided before; left as it is", r.requestId());
      return;
    }
    context.forward(
        new Record<String, Object>(r.requestId(), out, context.currentSystemTimeMs()),
        FleetTopology.APPROVALS_SINK);
    LOG.info(
        "approval request {} by {} for event {}: {}",
        r.requestId(),
        r.requestedBy(),
        r.eventId(),
        out.refusal() != null
            ? out.refusal()
            : (r.overrides() ? "accepted with override" : "accepted"));
  }

  private void step(Rollout r, RolloutPlanner.Step s) {
    for (RolloutPlanner.Release release : s.releases()) {
      ApprovalRequest request =
          ReleaseRequests.of(r, release, world.scheduledEventResource(release.eventId()), now());
      context.forward(
          new Record<String, Object>(
              release.requestId(), request.admit(release.counted()), context.currentSystemTimeMs()),
          FleetTopology.APPROVALS_SINK);
      LOG.info(
          "rollout {} wave {}: approving event {} for {} VM(s), acknowledging it for {}",
          r.id(),
          release.wave(),
          release.eventId(),
          release.vmIds().size(),
          release.acknowledge().size());
    }
    if (!s.releases().isEmpty()) {
      crashPoints.reach(CrashPoints.FLEET_ROLLOUT_RELEASED);
    }
    if (!s.rollout().equals(r)) {
      save(s.rollout());
      if (s.rollout().halt() != null && r.halt() == null) {
        LOG.warn("rollout {} halted: {}", r.id(), s.rollout().halt().reason());
      }
    }
  }

  private void save(Rollout r) {
    rollouts.put(r);
  }

  private Instant now() {
    return Instant.ofEpochMilli(context.currentSystemTimeMs());
  }
}
