package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sebridge.fleet.agentless.AzureEventStatus;
import java.time.Instant;
import java.util.List;

/**
 * What Azure's central delivery (Event Grid) says of an event, beside what the agents report: its
 * status as Azure tracks it (it also says Completed and Canceled), the scheduled event's ARM id
 * (the one the Maintenance RP acknowledges) and the VMs it lists by name.
 *
 * @param status the furthest status delivered: a late delivery of an earlier status never moves it
 *     back
 * @param resourceId the scheduled event's ARM id
 * @param resources the VM names Azure lists
 * @param firstSeenAt the first delivery's time
 * @param lastSeenAt the newest delivery's time
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CentralReport(
    AzureEventStatus status,
    String resourceId,
    List<String> resources,
    Instant firstSeenAt,
    Instant lastSeenAt) {
  public CentralReport {
    resources = resources == null ? List.of() : List.copyOf(resources);
  }

  /** Whether Azure says the event started or completed: released for every VM it lists. */
  public boolean released() {
    return status == AzureEventStatus.STARTED || status == AzureEventStatus.COMPLETED;
  }
}
