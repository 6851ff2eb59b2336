package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * What the central policies decided for one event, kept so every event is decided once.
 *
 * @param eventId the event
 * @param rule the rule that matched, or null when none did
 * @param version the policies' version
 * @param action approve, rollout, never, or none
 * @param dryRun true when the rule only records what it would do
 * @param detail what was done: the approval request or the rollout
 * @param at when
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PolicyDecision(
    String eventId,
    String rule,
    int version,
    String action,
    boolean dryRun,
    String detail,
    Instant at) {}
