package dev.sebridge.agent;

import dev.sebridge.approval.ApprovalPolicy;
import dev.sebridge.approval.ApprovalRecorder;
import dev.sebridge.approval.ApprovalResult;
import dev.sebridge.approval.ApprovalService;
import dev.sebridge.approval.Decision;
import dev.sebridge.approval.ReasonCode;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.state.CrashPoints;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local approval policy ({@code approval.policy}) at work: the event pipeline offers each newly
 * Scheduled event; one covered by a rule is approved on this component's own thread (never the
 * poller's) through the {@link ApprovalService}, and its result envelope published.
 *
 * <p>Each approval goes through {@link PolicyJournal} (sole owner of {@code
 * state.dir/policy.json}): recorded before the POST, its result staged before it is published,
 * forgotten once durable. What a crash left there is finished first after a restart ({@link
 * #recover}).
 */
final class PolicyApprover implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyApprover.class);

  /** After a restart, these mean "someone approved it meanwhile": not worth a result envelope. */
  private static final Set<ReasonCode> STALE =
      Set.of(ReasonCode.NOT_SCHEDULED, ReasonCode.UNKNOWN_EVENT);

  private final ApprovalPolicy policy;
  private final CompletableFuture<ApprovalService> service;
  private final PolicyJournal journal;
  private final EnvelopeFactory envelopes;
  private final EnvelopePublisher publisher;
  private final AgentMetrics metrics;
  private final CrashPoints crashPoints;
  private final Clock clock;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(DaemonThreads.named("sebridge-policy"));

  PolicyApprover(
      AgentContext ctx, ApprovalPolicy policy, CompletableFuture<ApprovalService> service) {
    this.policy = policy;
    this.service = service;
    this.journal = new PolicyJournal(ctx.state());
    this.envelopes = ctx.envelopes();
    this.publisher = ctx.publisher();
    this.metrics = ctx.metrics();
    this.crashPoints = ctx.crashPoints();
    this.clock = ctx.clock();
  }

  /** Finishes, once the identity is known, the approvals a crash interrupted. */
  void recover(CompletableFuture<VmIdentity> identity, ApprovalRecorder recorder) {
    identity.thenAccept(
        vm ->
            journal
                .entries()
                .forEach(e -> run(e.eventId(), () -> finish(e, vm, recorder, true, false))));
  }

  /**
   * Approves the event in the background if a rule covers it.
   *
   * @param again true when offered again after a restart (a previous attempt may have run)
   * @param recorder told when the approval was taken
   */
  void offer(
      ScheduledEvent event,
      long incarnation,
      VmIdentity vm,
      boolean again,
      ApprovalRecorder recorder) {
    Optional<ReasonCode> rule = policy.ruleFor(event, vm);
    if (rule.isEmpty() || journal.hasEvent(event.eventId())) {
      return;
    }
    String key = "policy:" + event.key() + ":" + incarnation;
    run(
        event.eventId(),
        () -> {
          journal.pending(key, event.eventId(), rule.get());
          finish(journal.get(key).orElseThrow(), vm, recorder, false, again);
        });
  }

  private void run(String eventId, Step step) {
    thread.execute(
        () -> {
          try {
            step.run();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            LOG.error("approving {} by policy failed", eventId, e);
          }
        });
  }

  /** Decides (unless a result is staged already), stages, publishes, forgets. */
  private void finish(
      PolicyJournal.Entry e,
      VmIdentity vm,
      ApprovalRecorder recorder,
      boolean resuming,
      boolean again)
      throws InterruptedException {
    Envelope result = e.result();
    ApprovalResult r = null;
    if (result == null) {
      List<String> ids = List.of(e.eventId());
      Decision d = service.join().approve(ids, e.rule(), resuming);
      crashPoints.reach(CrashPoints.POLICY_AFTER_POST);
      if (d.approved()) {
        recorder.approved(ids, clock.instant());
        LOG.info("approved {} ({})", ids, e.rule());
      } else if (again && STALE.contains(d.reasonCode())) {
        LOG.info("{} no longer needs the policy's approval: {}", e.eventId(), d.reason());
        journal.done(e.key());
        return;
      }
      r = d.toResult(new ApprovalResult.Policy(), ids, null, e.key());
      result = envelopes.approvalResult(r, vm);
      journal.staged(e.key(), result);
    }
    publisher.publish(List.of(result));
    if (r != null) {
      metrics.approval(r);
    }
    journal.done(e.key());
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }

  @FunctionalInterface
  private interface Step {
    void run() throws InterruptedException;
  }
}
