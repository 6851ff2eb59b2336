package dev.sebridge.approval;

import dev.sebridge.approval.ApprovalResult.Outcome;

/**
 * What {@link ApprovalService#approve} did: the outcome, its reason, and the HTTP status of the
 * POST when one was made.
 */
public record Decision(Outcome outcome, ReasonCode reasonCode, String reason, Integer imdsStatus) {

  static Decision rejected(ReasonCode code, String reason) {
    return new Decision(Outcome.REJECTED, code, reason, null);
  }

  static Decision failed(ReasonCode code, String reason, Integer status) {
    return new Decision(Outcome.FAILED, code, reason, status);
  }

  /** True when StartRequests were posted and taken (or, resuming, had been). */
  public boolean approved() {
    return outcome == Outcome.ACCEPTED;
  }

  /** The result envelope's content for this decision. */
  public ApprovalResult toResult(
      ApprovalResult.Origin origin, java.util.List<String> eventIds, String record, String key) {
    return new ApprovalResult(
        origin, outcome, reasonCode, reason, eventIds, imdsStatus, record, key);
  }
}
