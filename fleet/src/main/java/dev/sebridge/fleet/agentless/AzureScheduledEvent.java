package dev.sebridge.fleet.agentless;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * One scheduled event as Azure delivers it centrally (Event Grid's {@code
 * Microsoft.ResourceNotifications.MaintenanceResources} system topic, or Resource Graph's {@code
 * maintenanceresources}), for VMs whether or not they run an agent. The EventId is the one IMDS
 * shows those VMs.
 *
 * @param deliveryId the Event Grid (or CloudEvents) id: repeated deliveries carry the same one
 * @param eventId the EventId as Azure spells it
 * @param resourceId {@code resourceInfo.id}: the scheduled event's own ARM id, the one the
 *     Maintenance RP acknowledges
 * @param status Scheduled, Started, Completed or Canceled
 * @param eventType Reboot, Redeploy, Freeze, Preempt, Terminate (as given)
 * @param eventSource Platform or User, null when not given
 * @param notBefore null when empty (Started) or not a date any known producer writes
 * @param durationInSeconds -1 when unknown or not given
 * @param description as given, null when not given
 * @param resources the names of the VMs the event lists
 * @param location the region, null when not given
 * @param deliveredAt the delivery's own time, null when not given
 */
public record AzureScheduledEvent(
    String deliveryId,
    String eventId,
    String resourceId,
    AzureEventStatus status,
    String eventType,
    String eventSource,
    Instant notBefore,
    int durationInSeconds,
    String description,
    List<String> resources,
    String location,
    Instant deliveredAt) {
  static final String SCHEDULED_EVENTS = "/providers/microsoft.maintenance/scheduledevents/";

  public AzureScheduledEvent {
    resources = List.copyOf(resources);
    if (!isScheduledEventId(resourceId, eventId)) {
      throw new IllegalArgumentException(resourceId + " is not the scheduled event " + eventId);
    }
  }

  /**
   * Whether {@code id} is the ARM id of scheduled event {@code eventId} on a VM, scale set or
   * availability set: {@code /subscriptions/.../providers/Microsoft.Compute/<type>/<name>} followed
   * by {@code /providers/microsoft.maintenance/scheduledevents/<eventId>}, any case.
   */
  public static boolean isScheduledEventId(String id, String eventId) {
    if (id == null || eventId == null || eventId.isEmpty()) {
      return false;
    }
    int at = id.length() - SCHEDULED_EVENTS.length() - eventId.length();
    if (at <= 0
        || !id.regionMatches(true, at, SCHEDULED_EVENTS, 0, SCHEDULED_EVENTS.length())
        || !id.regionMatches(true, at + SCHEDULED_EVENTS.length(), eventId, 0, eventId.length())) {
      return false;
    }
    String[] parent = id.substring(0, at).split("/", -1);
    // "", subscriptions, s, resourceGroups, rg, providers, Microsoft.Compute, type, name
    return parent.length == 9
        && parent[0].isEmpty()
        && parent[1].equalsIgnoreCase("subscriptions")
        && parent[3].equalsIgnoreCase("resourceGroups")
        && parent[5].equalsIgnoreCase("providers")
        && parent[6].equalsIgnoreCase("Microsoft.Compute")
        && List.of("virtualmachines", "virtualmachinescalesets", "availabilitysets")
            .contains(parent[7].toLowerCase(Locale.ROOT))
        && java.util.Arrays.stream(parent).skip(1).noneMatch(String::isBlank);
  }

  /** The EventId in lower case: the identity of an event, as the fleet keys it. */
  public String key() {
    return eventId.toLowerCase(Locale.ROOT);
  }

  /**
   * The ARM id of the VM, scale set or availability set the event is on: {@link #resourceId()}
   * without its {@code /providers/microsoft.maintenance/scheduledevents/{EventId}}.
   */
  public String parentResourceId() {
    return resourceId.substring(
        0, resourceId.length() - SCHEDULED_EVENTS.length() - eventId.length());
  }
}
