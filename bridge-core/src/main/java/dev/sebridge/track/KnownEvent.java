package dev.sebridge.track;

import dev.sebridge.imds.ScheduledEvent;
import java.time.Instant;

/**
 * An event the agent has reported, as last seen.
 *
 * @param event the event as in the last document that listed it
 * @param firstSeenAt when the agent first saw it
 * @param approvedAt when this agent approved it (POST StartRequests), or null
 */
public record KnownEvent(ScheduledEvent event, Instant firstSeenAt, Instant approvedAt) {
  KnownEvent withEvent(ScheduledEvent e) {
    return new KnownEvent(e, firstSeenAt, approvedAt);
  }

  KnownEvent approved(Instant at) {
    return new KnownEvent(event, firstSeenAt, approvedAt == null ? at : approvedAt);
  }
}
