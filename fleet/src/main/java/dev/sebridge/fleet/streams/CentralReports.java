package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.agentless.AzureEventStatus;
import dev.sebridge.fleet.agentless.AzureScheduledEvent;
import dev.sebridge.fleet.model.CentralReport;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.Source;
import java.time.Instant;
import java.util.Map;

/**
 * How one delivery of Azure's central scheduled events changes an event's view. The agents' parts
 * are never touched: Azure's report sits beside them ({@link EventView#central()}). An event no
 * agent reported (its VMs have none) takes its type, NotBefore, duration, description and VM names
 * from Azure, and is over when Azure says Completed or Canceled.
 *
 * <p>Deliveries may repeat (the same Event Grid id) and arrive out of order: the status only moves
 * forward (Scheduled, Started, then Completed or Canceled, the first of those two final), and the
 * event's fields come only from the newest delivery of that status, so a repeated or late delivery
 * changes nothing but the first and last times.
 */
final class CentralReports {
  private CentralReports() {}

  /**
   * @param reconciled Azure's report read from Resource Graph (its time is the read's): it says
   *     what the event is only when it is the first word on it or moves its status on, as Resource
   *     Graph may lag the deliveries
   * @return the view, or null for an event the views do not have whose first word is that it is
   *     over (nothing to show or count; and never an event retention removed brought back)
   */
  static EventView apply(EventView old, AzureScheduledEvent e, Instant at, boolean reconciled) {
    if (old == null && e.status().over()) {
      return null;
    }
    CentralReport was = old == null ? null : old.central();
    AzureEventStatus status = was == null ? e.status() : furthest(was.status(), e.status());
    // Only the newest delivery of the furthest status says what the event is now: a late one
    // (Event Grid delivers out of order, through any partition) moves nothing but the times. A
    // status moving on is news whatever its time.
    boolean advanced = was == null || status != was.status();
    boolean newest =
        advanced || (!reconciled && e.status() == status && !at.isBefore(was.lastSeenAt()));
    CentralReport now =
        new CentralReport(
            status,
            newest ? e.resourceId() : was.resourceId(),
            // a Completed that lists no VM (the parser lets it through) keeps the names held
            newest && !(was != null && e.resources().isEmpty()) ? e.resources() : was.resources(),
            was == null ? at : EventViews.earlier(was.firstSeenAt(), at),
            was == null ? at : EventViews.later(was.lastSeenAt(), at));
    if (old == null) {
      return azureOnly(null, e, now, at, Source.AZURE);
    }
    Source first = old.firstSeenBy() == null ? Source.AGENT : old.firstSeenBy();
    if (old.vms().isEmpty()) {
      return newest ? azureOnly(old, e, now, at, first) : late(old, now, at, first);
    }
    return old.withCentral(now, first);
  }

  /** A late delivery of an event only Azure reported: its times and status, nothing else. */
  private static EventView late(EventView old, CentralReport report, Instant at, Source first) {
    boolean over = report.status().over();
    return new EventView(
        old.eventId(),
        old.eventType(),
        old.eventSource(),
        old.notBefore(),
        old.durationInSeconds(),
        old.description(),
        old.resources(),
        EventViews.earlier(old.firstSeenAt(), at),
        EventViews.later(old.lastSeenAt(), at),
        over ? (old.closedAt() != null ? old.closedAt() : at) : null,
        Map.of(),
        report,
        first,
        old.reportedAt());
  }

  /** An event only Azure reported: its fields as Azure's newest delivery gives them. */
  private static EventView azureOnly(
      EventView old, AzureScheduledEvent e, CentralReport report, Instant at, Source first) {
    boolean over = report.status().over();
    Instant closedAt = over ? (old != null && old.closedAt() != null ? old.closedAt() : at) : null;
    return new EventView(
        e.eventId(),
        e.eventType(),
        e.eventSource(),
        e.notBefore(),
        e.durationInSeconds(),
        e.description(),
        e.resources(),
        old == null ? at : EventViews.earlier(old.firstSeenAt(), at),
        old == null ? at : EventViews.later(old.lastSeenAt(), at),
        closedAt,
        Map.of(),
        report,
        first);
  }

  private static AzureEventStatus furthest(AzureEventStatus was, AzureEventStatus now) {
    if (was.over()) {
      return was; // the first final status stands
    }
    return now.ordinal() > was.ordinal() ? now : was;
  }
}
