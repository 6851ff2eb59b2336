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
 * @param kind the command's own outcome, a refused replay of it, or a summary of rejections
 * @param record where the command was read (e.g. {@code commands/3@1042}), or null
 * @param summary for {@link Kind#SUMMARY}: the rejections counted, else null
 * @param key what makes the result's envelope id unique and stable (command id, or position)
 */
public record ApprovalResult(
    Origin origin,
    Outcome outcome,
    ReasonCode reasonCode,
    String reason,
    List<String> eventIds,
    Integer imdsStatus,
    Kind kind,
    String record,
    RejectionCounts summary,
    String key) {

  public ApprovalResult {
    Objects.requireNonNull(origin);
    Objects.requireNonNull(outcome);
    Objects.requireNonNull(reasonCode);
    Objects.requireNonNull(kind);
    Objects.requireNonNull(key);
    eventIds = eventIds == null ? List.of() : List.copyOf(eventIds);
  }

  /** A command's or a policy's own outcome. */
  public ApprovalResult(
      Origin origin,
      Outcome outcome,
      ReasonCode reasonCode,
      String reason,
      List<String> eventIds,
      Integer imdsStatus,
      String record,
      String key) {
    this(
        origin, outcome, reasonCode, reason, eventIds, imdsStatus, Kind.OUTCOME, record, null, key);
  }

  /** Which of the three things a result says ({@code data.resultKind}). */
  public enum Kind {
    /** What happened to this command (or policy approval): the one a workflow waits for. */
    OUTCOME("outcome"),
    /** A later copy of an already used command was refused; the first copy's outcome stands. */
    REPLAY("replay"),
    /** Rejections counted, not reported one by one ({@code summary}). */
    SUMMARY("summary");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
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
