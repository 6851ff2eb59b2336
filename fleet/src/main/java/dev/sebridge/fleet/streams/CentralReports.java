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
 * forward (Scheduled, Started, then Completed or Canceled, the first of those two final), so a
 * repeated or late delivery changes nothing but the last-seen time.
 */
final class CentralReports {
  private CentralReports() {}

  static EventView apply(EventView old, AzureScheduledEvent e, Instant at) {
    CentralReport was = old == null ? null : old.central();
    CentralReport now =
        new CentralReport(
            was == null ? e.status() : furthest(was.status(), e.status()),
            e.resourceId(),
            e.resources(),
            was == null ? at : EventViews.earlier(was.firstSeenAt(), at),
            was == null ? at : EventViews.later(was.lastSeenAt(), at));
    if (old == null) {
      return azureOnly(null, e, now, at, Source.AZURE);
    }
    Source first = old.firstSeenBy() == null ? Source.AGENT : old.firstSeenBy();
    if (old.vms().isEmpty()) {
      return azureOnly(old, e, now, at, first);
    }
    return old.withCentral(now, first);
  }

  /** An event only Azure reported: its fields as Azure's newest delivery gives them. */
  private static EventView azureOnly(
      EventView old, AzureScheduledEvent e, CentralReport report, Instant at, Source first) {
    boolean over = report.status().over();
    Instant closedAt = over ? (old != null && old.closedAt() != null ? old.closedAt() : at) : null;
    // A late delivery of an earlier status does not bring back what a later one cleared.
    boolean newest = old == null || report.status() == e.status();
    return new EventView(
        e.eventId(),
        e.eventType(),
        e.eventSource(),
        newest ? e.notBefore() : old.notBefore(),
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
