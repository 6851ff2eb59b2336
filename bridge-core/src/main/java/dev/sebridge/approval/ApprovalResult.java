package dev.sebridge.approval;

import java.util.List;
import java.util.Objects;

/**
 * What happened to one approval: published as a {@code dev.sebridge.approval.result.v1} envelope.
 *
 * @param origin a signed command, or the local policy
 * @param outcome accepted, rejected, failed or dry-run
 * @param reasonCode machine-readable reason
 * @param reason human-readable reason
 * @param eventIds the events concerned
 * @param imdsStatus HTTP status of the POST, or null when nothing was posted
 * @param key what makes the result's envelope id unique and stable (command id, or position)
 */
public record ApprovalResult(
    Origin origin,
    Outcome outcome,
    ReasonCode reasonCode,
    String reason,
    List<String> eventIds,
    Integer imdsStatus,
    String key) {

  public ApprovalResult {
    Objects.requireNonNull(origin);
    Objects.requireNonNull(outcome);
    Objects.requireNonNull(reasonCode);
    Objects.requireNonNull(key);
    eventIds = eventIds == null ? List.of() : List.copyOf(eventIds);
  }

  /** Where an approval came from. */
  public sealed interface Origin {
    /** The value of {@code data.origin}. */
    String label();
  }

  /**
   * A command from the commands topic. Only what the verifier could read: for a command too broken
   * to have them, the fields are null; for a rejected one they are untrusted.
   */
  public record Command(String commandId, String requestedBy, String issuer, String keyId)
      implements Origin {
    @Override
    public String label() {
      return "command";
    }
  }

  /** The local approval policy ({@code approval.policy}). */
  public record Policy() implements Origin {
    @Override
    public String label() {
      return "policy";
    }
  }

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

  /** The command id, when the origin is a command that has one. */
  public String commandId() {
    return origin instanceof Command c ? c.commandId() : null;
  }
}
