package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
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
    String origin) {
  public static final String CREATE = "create";
  public static final String RESUME = "resume";
  public static final String SKIP = "skip";
  public static final String ABORT = "abort";
}
