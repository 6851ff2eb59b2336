package dev.sebridge.approval;

import dev.sebridge.agent.EnvelopePublisher;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.ReceivedCommand;
import dev.sebridge.command.ReplayCache;
import dev.sebridge.command.Verdict;
import dev.sebridge.command.VerifiedCommand;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.ImdsClient;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.VmIdentity;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns approvals into {@code POST StartRequests}: signed commands (verified, then checked against
 * a fresh IMDS read) and the local policy. Every command and every policy approval ends in an
 * {@code approval.result} envelope, durable in the outbox before the command counts as handled.
 *
 * <p>Approving releases an event for every VM in its Resources: this is the product's most
 * sensitive path, so anything not explicitly allowed is refused, and nothing is posted for a
 * rejected command.
 */
public final class ApprovalService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalService.class);
  private static final int POST_ATTEMPTS = 3;

  private final ImdsClient imds;
  private final Duration imdsTimeout;
  private final ApprovalSettings settings;
  private final ApprovalPolicy policy;
  private final ReplayCache replay;
  private final CommandVerifier verifier;
  private final EnvelopeFactory envelopes;
  private final EnvelopePublisher publisher;
  private final VmIdentity vm;
  private final BiConsumer<List<String>, Instant> onApproved;
  private final Clock clock;
  private final dev.sebridge.agent.AgentMetrics metrics;
  private final IntervalFunction retry =
      IntervalFunction.ofExponentialRandomBackoff(
          Duration.ofMillis(200), 2.0, 0.5, Duration.ofSeconds(2));
  private final ExecutorService policyThread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sebridge-policy");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param verifier null when no command source is configured (policy only)
   * @param onApproved told which events this agent approved (the tracker classifies removals with
   *     it)
   */
  public ApprovalService(
      ImdsClient imds,
      Duration imdsTimeout,
      ApprovalSettings settings,
      ReplayCache replay,
      CommandVerifier verifier,
      EnvelopeFactory envelopes,
      EnvelopePublisher publisher,
      VmIdentity vm,
      BiConsumer<List<String>, Instant> onApproved,
      Clock clock,
      dev.sebridge.agent.AgentMetrics metrics) {
    this.metrics = metrics;
    this.imds = imds;
    this.imdsTimeout = imdsTimeout;
    this.settings = settings;
    this.policy = new ApprovalPolicy(settings);
    this.replay = replay;
    this.verifier = verifier;
    this.envelopes = envelopes;
    this.publisher = publisher;
    this.vm = vm;
    this.onApproved = onApproved;
    this.clock = clock;
  }

  /**
   * Handles one command; returns once its result envelope is durable (then its position may be
   * committed). Returns empty when the command was already handled at this very position (a
   * re-delivery after a crash): nothing is published twice.
   */
  public Optional<ApprovalResult> handleCommand(ReceivedCommand received)
      throws InterruptedException {
    ApprovalResult result = decide(received);
    if (result == null) {
      return Optional.empty();
    }
    publish(result);
    return Optional.of(result);
  }

  private ApprovalResult decide(ReceivedCommand received) throws InterruptedException {
    String fallbackKey = "position:" + received.origin();
    if (clock.instant().isBefore(replay.blindUntil())) {
      return rejected(
          null,
          null,
          "replay-cache-lost",
          "the replay cache was lost; commands are refused until " + replay.blindUntil(),
          List.of(),
          fallbackKey);
    }
    Verdict verdict = verifier.verify(received.payload());
    if (verdict instanceof Verdict.Rejected r) {
      LOG.warn(
          "rejected command {} from {}: {} ({})",
          r.commandId(),
          received.origin(),
          r.reasonCode(),
          r.reason());
      return new ApprovalResult(
          "command",
          r.commandId(),
          ApprovalResult.Outcome.REJECTED,
          r.reasonCode(),
          r.reason(),
          List.of(),
          null,
          null,
          null,
          r.keyId(),
          r.commandId() != null
              ? "command:" + r.commandId() + ":" + received.position()
              : fallbackKey);
    }
    VerifiedCommand c = ((Verdict.Valid) verdict).command();
    String key = "command:" + c.commandId();
    Optional<ReplayCache.Entry> seen = replay.get(c.commandId());
    if (seen.isPresent()) {
      boolean sameRecord = received.position().equals(seen.get().position());
      if (sameRecord && seen.get().state() == ReplayCache.State.DONE) {
        LOG.info("command {} was handled before a restart; not handled again", c.commandId());
        return null;
      }
      if (!sameRecord) {
        LOG.warn(
            "rejected replayed command {} from {} (first read at {})",
            c.commandId(),
            received.origin(),
            seen.get().position());
        return command(
            c,
            ApprovalResult.Outcome.REJECTED,
            "replayed",
            "command " + c.commandId() + " was already used",
            null,
            key + ":replay:" + received.position());
      }
      LOG.info("resuming command {}, interrupted by a restart", c.commandId());
    } else {
      replay.put(c.commandId(), c.expiresAt(), received.position(), ReplayCache.State.PENDING);
    }
    ApprovalResult r = approve(c.eventIds(), settings.dryRun(), "command", c, key, "accepted");
    replay.put(c.commandId(), c.expiresAt(), received.position(), ReplayCache.State.DONE);
    return r;
  }

  /** Evaluates the local policy for a newly Scheduled event, in the background. */
  public void onScheduled(ScheduledEvent event, long incarnation) {
    if (!settings.anyPolicy()) {
      return;
    }
    Optional<String> rule = policy.ruleFor(event, vm);
    if (rule.isEmpty()) {
      return;
    }
    policyThread.execute(
        () -> {
          try {
            ApprovalResult r =
                approve(
                    List.of(event.eventId()),
                    settings.dryRun(),
                    "policy",
                    null,
                    "policy:" + event.key() + ":" + incarnation,
                    rule.get());
            publish(r);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            LOG.error("approving {} by policy failed", event.eventId(), e);
          }
        });
  }

  /** The checks against a fresh IMDS document, then the POST (or the dry run). */
  private ApprovalResult approve(
      List<String> eventIds,
      boolean dryRun,
      String origin,
      VerifiedCommand c,
      String key,
      String acceptedCode)
      throws InterruptedException {
    ImdsResult<ScheduledEventsDocument> fresh = readWithRetry();
    if (fresh instanceof ImdsResult.Failed<ScheduledEventsDocument> f) {
      return result(
          origin,
          c,
          ApprovalResult.Outcome.FAILED,
          "imds-unavailable",
          "could not read IMDS to check the events: " + f.failure(),
          eventIds,
          null,
          key);
    }
    ScheduledEventsDocument doc = ((ImdsResult.Ok<ScheduledEventsDocument>) fresh).value();
    for (String id : eventIds) {
      Optional<ScheduledEvent> e =
          doc.events().stream()
              .filter(x -> x.key().equals(id.toLowerCase(Locale.ROOT)))
              .findFirst();
      if (e.isEmpty()) {
        return result(
            origin,
            c,
            ApprovalResult.Outcome.REJECTED,
            "unknown-event",
            "IMDS lists no event " + id,
            eventIds,
            null,
            key);
      }
      if (!e.get().isScheduled()) {
        return result(
            origin,
            c,
            ApprovalResult.Outcome.REJECTED,
            "not-scheduled",
            "event " + id + " is " + e.get().eventStatus() + ", not Scheduled",
            eventIds,
            null,
            key);
      }
      if (!e.get().lists(vm.name())) {
        return result(
            origin,
            c,
            ApprovalResult.Outcome.REJECTED,
            "not-listed",
            "event " + id + " does not list this VM (" + vm.name() + ") in Resources",
            eventIds,
            null,
            key);
      }
      if (!settings.typeAllowed(e.get().eventType())) {
        return result(
            origin,
            c,
            ApprovalResult.Outcome.REJECTED,
            "type-not-allowed",
            e.get().eventType() + " events are not approved here (approval.allow-types)",
            eventIds,
            null,
            key);
      }
    }
    if (dryRun) {
      LOG.info("dry run: would approve {} ({})", eventIds, acceptedCode);
      return result(
          origin,
          c,
          ApprovalResult.Outcome.DRY_RUN,
          acceptedCode,
          "approval.dry-run: nothing posted",
          eventIds,
          null,
          key);
    }
    ImdsResult<Integer> post = null;
    for (int attempt = 1; attempt <= POST_ATTEMPTS; attempt++) {
      post = imds.startEvents(eventIds, imdsTimeout);
      if (post instanceof ImdsResult.Ok<Integer>
          || ((ImdsResult.Failed<Integer>) post).failure().kind() == ImdsFailure.Kind.BAD_REQUEST) {
        break;
      }
      Thread.sleep(retry.apply(attempt));
    }
    if (post instanceof ImdsResult.Ok<Integer> ok) {
      onApproved.accept(eventIds, clock.instant());
      LOG.info(
          "approved {} ({}{})",
          eventIds,
          acceptedCode,
          c == null ? "" : ", requested by " + c.requestedBy());
      return result(
          origin,
          c,
          ApprovalResult.Outcome.ACCEPTED,
          acceptedCode,
          "StartRequests posted for " + eventIds.size() + " event(s)",
          eventIds,
          ok.value(),
          key);
    }
    ImdsFailure f = ((ImdsResult.Failed<Integer>) post).failure();
    LOG.warn("IMDS did not take the approval of {}: {}", eventIds, f);
    return result(
        origin,
        c,
        ApprovalResult.Outcome.FAILED,
        "imds-refused",
        "POST StartRequests failed: " + f,
        eventIds,
        f.httpStatus() == 0 ? null : f.httpStatus(),
        key);
  }

  private ImdsResult<ScheduledEventsDocument> readWithRetry() throws InterruptedException {
    ImdsResult<ScheduledEventsDocument> r = null;
    for (int attempt = 1; attempt <= POST_ATTEMPTS; attempt++) {
      r = imds.scheduledEvents(imdsTimeout);
      if (r instanceof ImdsResult.Ok<ScheduledEventsDocument>) {
        return r;
      }
      Thread.sleep(retry.apply(attempt));
    }
    return r;
  }

  private ApprovalResult result(
      String origin,
      VerifiedCommand c,
      ApprovalResult.Outcome outcome,
      String code,
      String reason,
      List<String> eventIds,
      Integer status,
      String key) {
    return new ApprovalResult(
        origin,
        c == null ? null : c.commandId(),
        outcome,
        code,
        reason,
        eventIds,
        status,
        c == null ? null : c.requestedBy(),
        c == null ? null : c.issuer(),
        c == null ? null : c.keyId(),
        key);
  }

  private static ApprovalResult command(
      VerifiedCommand c,
      ApprovalResult.Outcome outcome,
      String code,
      String reason,
      Integer status,
      String key) {
    return new ApprovalResult(
        "command",
        c.commandId(),
        outcome,
        code,
        reason,
        c.eventIds(),
        status,
        c.requestedBy(),
        c.issuer(),
        c.keyId(),
        key);
  }

  private static ApprovalResult rejected(
      String id, String kid, String code, String reason, List<String> ids, String key) {
    return new ApprovalResult(
        "command",
        id,
        ApprovalResult.Outcome.REJECTED,
        code,
        reason,
        ids,
        null,
        null,
        null,
        kid,
        key);
  }

  private void publish(ApprovalResult r) throws InterruptedException {
    publisher.publish(List.of(envelopes.approvalResult(r, vm)));
    if (metrics != null) {
      metrics.approval(r.origin(), r.outcome().label(), r.reasonCode());
    }
  }

  @Override
  public void close() {
    policyThread.shutdownNow();
  }
}
