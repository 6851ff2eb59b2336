package dev.sebridge.track;

import dev.sebridge.imds.ScheduledEvent;
import java.time.Instant;

/**
 * A change of one scheduled event between two documents.
 *
 * @param type what happened
 * @param event the event as last seen (for a removal: as it was before it disappeared)
 * @param previousStatus the status before, or null for a new event
 * @param incarnation DocumentIncarnation of the document in which the change was seen
 * @param observedAt when the agent saw it
 * @param inferred true when the agent could not observe the change live (it was down, or missed
 *     documents) and {@code type} is its best guess
 */
public record Transition(
    TransitionType type,
    ScheduledEvent event,
    String previousStatus,
    long incarnation,
    Instant observedAt,
    boolean inferred) {}
