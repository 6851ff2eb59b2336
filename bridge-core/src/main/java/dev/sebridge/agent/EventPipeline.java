package dev.sebridge.agent;

import dev.sebridge.approval.ApprovalRecorder;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import dev.sebridge.track.EventTracker;
import dev.sebridge.track.KnownEvent;
import dev.sebridge.track.TrackerState;
import dev.sebridge.track.TrackerStateCodec;
import dev.sebridge.track.Transition;
import dev.sebridge.track.TransitionType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event pipeline, sole owner of the tracker and of {@code state.dir/tracker.json}:
 *
 * <pre>
 * document -> tracker.observe -> envelopes -> tracker.json (next state + envelopes, staged)
 *          -> outbox (durable) -> tracker.json (next state) -> tracker.commit
 * </pre>
 *
 * Approvals come in as inputs ({@link #approved}) and are applied under the same monitor as
 * documents, so neither can overwrite the other. A crash before the envelopes are staged makes the
 * next document produce the same transitions again, with the same ids; a crash after it publishes
 * the staged envelopes again, byte for byte, before anything else: a consumer sees no loss, and at
 * worst an identical duplicate.
 *
 * <p>Newly Scheduled events are offered to the local policy once they are committed; after a
 * restart, the Scheduled events this agent has not approved are offered again (an approval the
 * crash interrupted is not lost).
 */
final class EventPipeline implements DocumentHandler, ApprovalRecorder {
  static final String TRACKER_FILE = "tracker.json";
  private static final Logger LOG = LoggerFactory.getLogger(EventPipeline.class);

  private final StateDirectory state;
  private final EventTracker tracker;
  private final EnvelopeFactory envelopes;
  private final EnvelopePublisher publisher;
  private final Supplier<Optional<VmIdentity>> identity;
  private final PolicyApprover policy;
  private final PollStats stats;
  private final AgentMetrics metrics;
  private final CrashPoints crashPoints;
  private volatile long committedIncarnation = -1;
  private volatile int knownEvents;
  private boolean identityWaitLogged;
  private List<Envelope> unpublished;

  /**
   * @param identity the VM identity once known (documents are skipped until then)
   * @param policy the local policy, or null when none is configured
   */
  EventPipeline(
      AgentContext ctx,
      Supplier<Optional<VmIdentity>> identity,
      PolicyApprover policy,
      PollStats stats) {
    this.state = ctx.state();
    this.envelopes = ctx.envelopes();
    this.publisher = ctx.publisher();
    this.identity = identity;
    this.policy = policy;
    this.stats = stats;
    this.metrics = ctx.metrics();
    this.crashPoints = ctx.crashPoints();
    Duration pollInterval = ctx.config().get(CoreKeys.IMDS_POLL_INTERVAL);
    Optional<TrackerStateCodec.Stored> stored = restore(state);
    Optional<TrackerState> restored = stored.map(TrackerStateCodec.Stored::state);
    this.unpublished =
        stored
            .map(s -> s.unpublished().stream().map(Envelope::fromJson).toList())
            .orElse(List.of());
    Duration gap = pollInterval.multipliedBy(10);
    this.tracker =
        new EventTracker(
            restored.orElse(TrackerState.initial()),
            restored.isPresent(),
            gap.compareTo(Duration.ofSeconds(30)) < 0 ? Duration.ofSeconds(30) : gap);
    this.knownEvents = tracker.state().events().size();
  }

  private static Optional<TrackerStateCodec.Stored> restore(StateDirectory state) {
    Optional<byte[]> bytes = state.read(TRACKER_FILE);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    try {
      TrackerStateCodec.Stored s = TrackerStateCodec.readStored(bytes.get());
      LOG.info(
          "Restored state: incarnation {}, {} known events",
          s.state().incarnation(),
          s.state().events().size());
      return Optional.of(s);
    } catch (IllegalArgumentException e) {
      state.quarantine(TRACKER_FILE, e.getMessage());
      return Optional.empty();
    }
  }

  @Override
  public void onDocument(ScheduledEventsDocument doc, Instant at) throws InterruptedException {
    Optional<VmIdentity> vm = identity.get();
    if (vm.isEmpty()) {
      if (!identityWaitLogged) {
        LOG.info(
            "IMDS answered (incarnation {}); waiting for the VM identity before reporting",
            doc.incarnation());
        identityWaitLogged = true;
      }
      return;
    }
    process(doc, at, vm.get());
  }

  private synchronized void process(ScheduledEventsDocument doc, Instant at, VmIdentity vm)
      throws InterruptedException {
    if (!unpublished.isEmpty()) {
      LOG.info("publishing {} envelope(s) staged before a restart", unpublished.size());
      publisher.publish(unpublished);
      state.write(TRACKER_FILE, TrackerStateCodec.write(tracker.state()));
      unpublished = List.of();
    }
    if (tracker.touchIfUnchanged(doc, at)) {
      committedIncarnation = doc.incarnation();
      return;
    }
    boolean afterRestart = tracker.isRestored();
    EventTracker.Observation obs = tracker.observe(doc, at);
    crashPoints.reach(CrashPoints.PIPELINE_AFTER_OBSERVE);
    List<Envelope> out = new ArrayList<>(obs.transitions().size());
    for (Transition t : obs.transitions()) {
      out.add(envelopes.scheduledEvent(t, vm));
    }
    if (!out.isEmpty()) {
      state.write(
          TRACKER_FILE,
          TrackerStateCodec.write(obs.next(), out.stream().map(Envelope::body).toList()));
      crashPoints.reach(CrashPoints.PIPELINE_AFTER_STAGE);
      publisher.publish(out);
      crashPoints.reach(CrashPoints.PIPELINE_AFTER_PUBLISH);
    }
    if (obs.stateChanged()) {
      state.write(TRACKER_FILE, TrackerStateCodec.write(obs.next()));
    }
    tracker.commit(obs);
    knownEvents = tracker.state().events().size();
    committedIncarnation = doc.incarnation();
    stats.transitions(out.size());
    for (Transition t : obs.transitions()) {
      metrics.transition(t.type());
      LOG.info(
          "{} {} {} (incarnation {}{})",
          t.type().label(),
          t.event().eventType(),
          t.event().eventId(),
          t.incarnation(),
          t.inferred() ? ", inferred" : "");
    }
    offerToPolicy(obs, afterRestart, vm);
  }

  private void offerToPolicy(EventTracker.Observation obs, boolean afterRestart, VmIdentity vm) {
    if (policy == null) {
      return;
    }
    long incarnation = obs.next().incarnation();
    for (Transition t : obs.transitions()) {
      if (t.type() == TransitionType.SCHEDULED && !t.inferred()) {
        policy.offer(t.event(), incarnation, vm, false, this);
      }
    }
    if (afterRestart) {
      for (KnownEvent k : tracker.state().events().values()) {
        boolean isNew =
            obs.transitions().stream().anyMatch(t -> t.event().key().equals(k.event().key()));
        if (!isNew && k.approvedAt() == null && k.event().isScheduled()) {
          policy.offer(k.event(), incarnation, vm, true, this);
        }
      }
    }
  }

  /** This agent approved events: remembered durably, applied between two documents. */
  @Override
  public synchronized void approved(List<String> eventIds, Instant at) {
    boolean changed = false;
    for (String id : eventIds) {
      KnownEvent known = tracker.state().events().get(id.toLowerCase(Locale.ROOT));
      if (known != null && known.approvedAt() == null) {
        metrics.approvalDelay(Duration.between(known.firstSeenAt(), at));
      }
      changed |= tracker.markApproved(id, at) != null;
    }
    if (changed) {
      state.write(TRACKER_FILE, TrackerStateCodec.write(tracker.state()));
    }
  }

  /** DocumentIncarnation of the last document fully processed (envelopes durable), or -1. */
  long committedIncarnation() {
    return committedIncarnation;
  }

  /** Events reported and not yet gone. */
  int knownEvents() {
    return knownEvents;
  }

  /** The committed state (tests). */
  synchronized TrackerState state() {
    return tracker.state();
  }
}
