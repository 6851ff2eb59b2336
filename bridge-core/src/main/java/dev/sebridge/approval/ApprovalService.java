package dev.sebridge.approval;

import dev.sebridge.approval.ApprovalResult.Outcome;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.VmIdentity;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an approval that was already found acceptable (a verified command, or a local policy rule)
 * into {@code POST StartRequests}: first the checks against a fresh IMDS read ({@link ImdsChecks}),
 * then the POST ({@link StartRequestPoster}), or nothing in dry-run mode.
 *
 * <p>Approving releases an event for every VM in its Resources: anything not explicitly allowed is
 * refused, and nothing is posted for a refused approval. Calls are serialized: the command pump and
 * the local policy never post at the same time.
 */
public final class ApprovalService {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalService.class);

  private final ImdsChecks checks;
  private final StartRequestPoster poster;
  private final boolean dryRun;
  private final VmIdentity vm;

  public ApprovalService(
      Imds imds, Duration imdsTimeout, ApprovalSettings settings, VmIdentity vm) {
    this.vm = vm;
    this.checks = new ImdsChecks(imds, imdsTimeout, settings, vm);
    this.poster = new StartRequestPoster(imds, imdsTimeout);
    this.dryRun = settings.dryRun();
  }

  /** The VM whose events this service approves. */
  public VmIdentity vm() {
    return vm;
  }

  /**
   * Checks and posts.
   *
   * @param eventIds the events to approve, in one POST
   * @param acceptedCode the reason code of a success ({@code accepted}, or the policy rule)
   * @param resuming true when a restart interrupted an earlier attempt for the same approval: an
   *     event that has started since is then not posted again
   */
  public Decision approve(List<String> eventIds, ReasonCode acceptedCode, boolean resuming) {
    return approve(eventIds, acceptedCode, resuming, Map.of());
  }

  /**
   * Checks and posts, refusing an event that lists a VM its issuer did not count.
   *
   * @param counted the VM names the command's issuer counted for each event, by EventId in lower
   *     case and each name in lower case ({@link dev.sebridge.command.VerifiedCommand#counted}); an
   *     event without an entry is not checked for them
   */
  public synchronized Decision approve(
      List<String> eventIds,
      ReasonCode acceptedCode,
      boolean resuming,
      Map<String, Set<String>> counted) {
    ImdsChecks.Check check = checks.check(eventIds, resuming, counted);
    if (check instanceof ImdsChecks.Refuse refuse) {
      return refuse.decision();
    }
    List<String> toPost = ((ImdsChecks.Post) check).eventIds();
    if (dryRun) {
      LOG.info("dry run: would approve {} ({})", eventIds, acceptedCode);
      return new Decision(Outcome.DRY_RUN, acceptedCode, "approval.dry-run: nothing posted", null);
    }
    if (toPost.isEmpty()) {
      return new Decision(
          Outcome.ACCEPTED,
          acceptedCode,
          "resumed after a restart: the event(s) had started; StartRequests was posted before the"
              + " restart",
          null);
    }
    ImdsResult<Integer> post = poster.post(toPost);
    if (post instanceof ImdsResult.Ok<Integer> ok) {
      return new Decision(
          Outcome.ACCEPTED,
          acceptedCode,
          "StartRequests posted for " + toPost.size() + " event(s)",
          ok.value());
    }
    ImdsFailure f = ((ImdsResult.Failed<Integer>) post).failure();
    LOG.warn("IMDS did not take the approval of {}: {}", toPost, f);
    return Decision.failed(
        ReasonCode.IMDS_REFUSED,
        "POST StartRequests failed: " + f,
        f.httpStatus() == 0 ? null : f.httpStatus());
  }
}
