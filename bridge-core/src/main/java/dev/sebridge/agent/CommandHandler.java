package dev.sebridge.agent;

import dev.sebridge.approval.ApprovalRecorder;
import dev.sebridge.approval.ApprovalResult;
import dev.sebridge.approval.ApprovalService;
import dev.sebridge.approval.Decision;
import dev.sebridge.approval.ReasonCode;
import dev.sebridge.command.BinaryCloudEvent;
import dev.sebridge.command.CommandJournal;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.ReplayCache;
import dev.sebridge.command.Verdict;
import dev.sebridge.command.VerifiedCommand;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.ReceivedCommand;
import dev.sebridge.state.CrashPoints;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps every batch of commands goes through, all here and in this order; sole owner of {@code
 * state.dir/commands/} (the replay cache and the position journal):
 *
 * <ol>
 *   <li>verify each command (signature, audience, time: CPU only);
 *   <li>replay check: a new command id is recorded {@code PENDING}, durably, before anything is
 *       posted;
 *   <li>approve: a fresh IMDS read, then {@code POST StartRequests} ({@link ApprovalService});
 *   <li>stage the batch's result envelopes and the position after it ({@link CommandJournal});
 *   <li>publish the results (durable in the outbox);
 *   <li>mark the commands {@code DONE} in the replay cache;
 *   <li>commit the position.
 * </ol>
 *
 * A crash at any step loses no result and posts nothing twice: staged results are published again
 * (identical) after a restart; a command read again while {@code PENDING} is resumed, and an event
 * it already got started is not posted again.
 */
final class CommandHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CommandHandler.class);

  private final CommandJournal journal;
  private final ReplayCache replay;
  private final CommandVerifier verifier;
  private final ApprovalService service;
  private final ApprovalRecorder recorder;
  private final VmIdentity vm;
  private final EnvelopeFactory envelopes;
  private final EnvelopePublisher publisher;
  private final AgentMetrics metrics;
  private final CrashPoints crashPoints;
  private final Clock clock;
  private final RejectionSummary rejections;

  CommandHandler(
      AgentContext ctx,
      CommandJournal journal,
      ReplayCache replay,
      CommandVerifier verifier,
      ApprovalService service,
      ApprovalRecorder recorder,
      VmIdentity vm) {
    this.journal = journal;
    this.replay = replay;
    this.verifier = verifier;
    this.service = service;
    this.recorder = recorder;
    this.vm = vm;
    this.envelopes = ctx.envelopes();
    this.publisher = ctx.publisher();
    this.metrics = ctx.metrics();
    this.crashPoints = ctx.crashPoints();
    this.clock = ctx.clock();
    this.rejections =
        new RejectionSummary(
            ctx.config().get(CoreKeys.COMMANDS_REJECTIONS_REPORTED),
            ctx.config().get(CoreKeys.COMMANDS_REJECTIONS_INTERVAL));
    rejections.restore(journal.pendingRejections());
  }

  VmIdentity vm() {
    return vm;
  }

  /** Where the source resumes: after the last batch staged. */
  Optional<String> position() {
    return journal.position();
  }

  /** Results a crash left staged: published again, identical, before anything new is read. */
  void recover() throws InterruptedException {
    List<Envelope> staged = journal.staged();
    if (!staged.isEmpty() || !journal.stagedCommands().isEmpty()) {
      LOG.info("publishing {} approval result(s) staged before a restart", staged.size());
      publisher.publish(staged);
      replay.markDone(journal.stagedCommands());
      journal.commit();
    }
  }

  /** Handles a batch; returns once its results are durable and its position committed. */
  void handle(List<ReceivedCommand> batch) throws InterruptedException {
    handle(batch, () -> {});
  }

  /**
   * Handles a batch, telling {@code eachCommand} before each of its commands (how the pump knows a
   * batch of slow approvals moves on); returns once its results are durable and its position
   * committed.
   */
  void handle(List<ReceivedCommand> batch, Runnable eachCommand) throws InterruptedException {
    Instant now = clock.instant();
    List<ApprovalResult> results = new ArrayList<>();
    List<String> commandIds = new ArrayList<>();
    List<ApprovalResult> reported = new ArrayList<>();
    List<ReasonCode> counted = new ArrayList<>();
    for (ReceivedCommand received : batch) {
      eachCommand.run();
      Verdict verdict =
          now.isBefore(replay.blindUntil())
              ? new Verdict.Rejected(
                  ReasonCode.REPLAY_CACHE_LOST,
                  "the replay cache was lost; commands are refused until " + replay.blindUntil(),
                  null,
                  null)
              : verifier.verify(BinaryCloudEvent.structured(received));
      if (verdict instanceof Verdict.Valid valid) {
        // Genuine approvals first: garbage in the same batch does not delay them.
        handleValid(valid.command(), received).ifPresent(results::add);
        commandIds.add(valid.command().commandId());
      } else if (rejections.reportIndividually(now)) {
        reported.add(rejection((Verdict.Rejected) verdict, received));
      } else {
        Verdict.Rejected r = (Verdict.Rejected) verdict;
        rejections.count(r.reasonCode(), received.origin(), now);
        counted.add(r.reasonCode());
      }
    }
    results.addAll(reported);
    Optional<ApprovalResult> summary = summary(now);
    summary.ifPresent(results::add);
    commit(batch.get(batch.size() - 1).position(), results, commandIds);
    results.stream()
        .filter(r -> r.kind() != ApprovalResult.Kind.SUMMARY)
        .forEach(metrics::approval);
    counted.forEach(code -> metrics.rejectionCounted(code));
  }

  /**
   * A record the source skipped because the agent kept dying there: its result, committed with the
   * position after it, so that no restart reads it again (the commands after it may all be other
   * VMs', which move no position of this VM's).
   */
  void poison(CommandSource.Skipped skipped, int crashes) throws InterruptedException {
    ApprovalResult r =
        new ApprovalResult(
            new ApprovalResult.Command(null, null, null, null),
            ApprovalResult.Outcome.REJECTED,
            ReasonCode.POISON_RECORD,
            "the agent died reading this record " + crashes + " times; it was skipped unread",
            List.of(),
            null,
            skipped.record(),
            "poison:" + skipped.record());
    commit(skipped.next(), List.of(r), List.of());
    metrics.approval(r);
    crashPoints.reach(CrashPoints.PUMP_AFTER_POISON_RESULT);
  }

  /** Between batches: reports the counted rejections once their interval is over. */
  void idle() throws InterruptedException {
    Optional<ApprovalResult> summary = summary(clock.instant());
    if (summary.isPresent()) {
      commit(journal.position().orElse(null), List.of(summary.get()), List.of());
    }
  }

  /** Stage, publish, DONE, commit: the order that loses nothing. */
  private void commit(String position, List<ApprovalResult> results, List<String> commandIds)
      throws InterruptedException {
    List<Envelope> out = results.stream().map(r -> envelopes.approvalResult(r, vm)).toList();
    journal.stage(position, out, commandIds, rejections.toJson());
    crashPoints.reach(CrashPoints.PUMP_AFTER_JOURNAL);
    publisher.publish(out);
    crashPoints.reach(CrashPoints.PUMP_AFTER_RESULT_DURABLE);
    replay.markDone(commandIds);
    crashPoints.reach(CrashPoints.PUMP_AFTER_DONE);
    journal.commit();
  }

  private Optional<ApprovalResult> summary(Instant now) {
    return rejections
        .due(now)
        .map(
            c -> {
              LOG.warn(
                  "rejected {} more command(s), not reported one by one, from {} to {} since {}:"
                      + " {}",
                  c.total(),
                  c.firstRecord(),
                  c.lastRecord(),
                  c.since(),
                  c.byReason());
              return new ApprovalResult(
                  new ApprovalResult.Command(null, null, null, null),
                  ApprovalResult.Outcome.REJECTED,
                  ReasonCode.SUMMARIZED,
                  c.total() + " commands rejected, counted by reason in summary",
                  List.of(),
                  null,
                  ApprovalResult.Kind.SUMMARY,
                  null,
                  c,
                  "summary:" + c.firstRecord());
            });
  }

  private Optional<ApprovalResult> handleValid(VerifiedCommand c, ReceivedCommand received) {
    ApprovalResult.Command origin =
        new ApprovalResult.Command(c.commandId(), c.requestedBy(), c.issuer(), c.keyId());
    String key = "command:" + c.commandId();
    Optional<ReplayCache.Entry> seen = replay.get(c.commandId());
    boolean resuming = false;
    if (seen.isPresent()) {
      if (!received.position().equals(seen.get().position())) {
        LOG.warn(
            "rejected replayed command {} from {} (first read at {})",
            c.commandId(),
            received.origin(),
            seen.get().position());
        return Optional.of(
            new ApprovalResult(
                origin,
                ApprovalResult.Outcome.REJECTED,
                ReasonCode.REPLAYED,
                "command "
                    + c.commandId()
                    + " was already used (first read at "
                    + seen.get().position()
                    + "); that first copy's outcome stands",
                c.eventIds(),
                null,
                ApprovalResult.Kind.REPLAY,
                received.origin(),
                null,
                key + ":replay:" + received.position()));
      }
      if (seen.get().state() == ReplayCache.State.DONE) {
        LOG.info("command {} was handled before a restart; not handled again", c.commandId());
        return Optional.empty();
      }
      LOG.info("resuming command {}, interrupted by a restart", c.commandId());
      resuming = true;
    } else {
      replay.put(c.commandId(), c.expiresAt(), received.position(), ReplayCache.State.PENDING);
      crashPoints.reach(CrashPoints.PUMP_AFTER_PENDING);
    }
    Decision d = service.approve(c.eventIds(), ReasonCode.ACCEPTED, resuming, c.counted());
    crashPoints.reach(CrashPoints.PUMP_AFTER_POST);
    if (d.approved()) {
      recorder.approved(c.eventIds(), clock.instant());
      LOG.info(
          "approved {} (command {}, requested by {})",
          c.eventIds(),
          c.commandId(),
          c.requestedBy());
    } else {
      LOG.warn("command {}: {} ({})", c.commandId(), d.outcome().label(), d.reasonCode());
    }
    return Optional.of(d.toResult(origin, c.eventIds(), received.origin(), key));
  }

  private static ApprovalResult rejection(Verdict.Rejected r, ReceivedCommand received) {
    LOG.warn(
        "rejected command {} from {}: {} ({})",
        r.commandId(),
        received.origin(),
        r.reasonCode(),
        r.reason());
    return new ApprovalResult(
        new ApprovalResult.Command(r.commandId(), null, null, r.keyId()),
        ApprovalResult.Outcome.REJECTED,
        r.reasonCode(),
        r.reason(),
        List.of(),
        null,
        received.origin(),
        r.commandId() != null
            ? "command:" + r.commandId() + ":" + received.position()
            : "position:" + received.origin());
  }
}
