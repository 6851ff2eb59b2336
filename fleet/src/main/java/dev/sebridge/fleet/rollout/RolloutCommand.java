package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sebridge.fleet.model.ApprovalRequest;
import java.time.Instant;

/**
 * What an operator (or a policy) asks of a rollout, as written to the rollouts topic (keyed by
 * rollout id) before anything happens: the rollouts topic is their audit trail.
 *
 * @param rolloutId the rollout
 * @param action create, resume, skip, abort
 * @param spec for create: how it approves
 * @param vmId for skip: the VM to leave out (or null with eventId: every VM of that event)
 * @param eventId for skip: the event to leave out
 * @param reason why (required)
 * @param by who (the token's principal)
 * @param at when
 * @param origin for create: {@code api} or {@code policy:<rule>@v<version>}
 * @param approval for approve: an operator's approval (API or page), which the rollout processor
 *     checks against the fleet-wide ledger before it goes to the audit topic, accepted or refused
 * @param halt for resume: the halt it resumes (its {@code at}), or null (any): a resume sent again
 *     (a client's retry) or late resumes nothing once the rollout halted again since
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RolloutCommand(
    String rolloutId,
    String action,
    RolloutSpec spec,
    String vmId,
    String eventId,
    String reason,
    String by,
    Instant at,
    String origin,
    ApprovalRequest approval,
    Instant halt) {
  public static final String CREATE = "create";
  public static final String RESUME = "resume";
  public static final String SKIP = "skip";
  public static final String ABORT = "abort";

  /**
   * An operator's approval of one event, serialised with every rollout's steps on the rollouts
   * topic's one partition, so the ledger decides it and a rollout's wave never race.
   */
  public static final String APPROVE = "approve";

  /** A command about a rollout (no approval). */
  public RolloutCommand(
      String rolloutId,
      String action,
      RolloutSpec spec,
      String vmId,
      String eventId,
      String reason,
      String by,
      Instant at,
      String origin) {
    this(rolloutId, action, spec, vmId, eventId, reason, by, at, origin, null, null);
  }

  /** A command about a rollout; for resume, naming the halt it resumes ({@code halt}). */
  public RolloutCommand(
      String rolloutId,
      String action,
      String vmId,
      String eventId,
      String reason,
      String by,
      Instant at,
      Instant halt) {
    this(rolloutId, action, null, vmId, eventId, reason, by, at, null, null, halt);
  }

  /** An operator's approval, keyed by its request id. */
  public static RolloutCommand approve(ApprovalRequest r) {
    return new RolloutCommand(
        r.requestId(),
        APPROVE,
        null,
        null,
        r.eventId(),
        r.reason(),
        r.requestedBy(),
        r.requestedAt(),
        r.origin(),
        r,
        null);
  }
}
