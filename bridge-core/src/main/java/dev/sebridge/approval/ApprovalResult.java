package dev.sebridge.approval;

import java.util.List;

/**
 * What happened to one approval: published as a {@code dev.sebridge.approval.result.v1} envelope.
 *
 * @param origin {@code command} or {@code policy}
 * @param commandId the command's id (null for a policy approval, or a command too broken to have
 *     one)
 * @param outcome accepted, rejected, failed or dry-run
 * @param reasonCode machine-readable reason (docs/schemas.md lists the codes)
 * @param reason human-readable reason
 * @param eventIds the events concerned
 * @param imdsStatus HTTP status of the POST, or null when nothing was posted
 * @param requestedBy from the verified command, or null
 * @param issuer from the verified command, or null
 * @param keyId the kid the command named, or null
 * @param key what makes the result's envelope id unique and stable (command id, or position)
 */
public record ApprovalResult(
    String origin,
    String commandId,
    Outcome outcome,
    String reasonCode,
    String reason,
    List<String> eventIds,
    Integer imdsStatus,
    String requestedBy,
    String issuer,
    String keyId,
    String key) {

  /** The closed set of outcomes. */
  public enum Outcome {
    ACCEPTED("accepted"),
    REJECTED("rejected"),
    FAILED("failed"),
    DRY_RUN("dry-run");

    private final String label;

    Outcome(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  public ApprovalResult {
    eventIds = eventIds == null ? List.of() : List.copyOf(eventIds);
  }
}
