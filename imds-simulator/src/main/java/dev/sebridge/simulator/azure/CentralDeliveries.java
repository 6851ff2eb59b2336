package dev.sebridge.simulator.azure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * Azure's central scheduled events as the local Azure (and tests) write them: a scheduled event's
 * properties (as Event Grid and Resource Graph's {@code maintenanceresources} both carry them) and
 * one Event Grid delivery of it, in the CloudEvents 1.0 schema or Event Grid's own, as the
 * subscription writes it to the hub.
 */
public final class CentralDeliveries {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CentralDeliveries() {}

  /** A one-VM Reboot's properties in this status, with this NotBefore ("" once started). */
  public static ObjectNode properties(String eventId, String status, String notBefore, String vm) {
    ObjectNode p = JSON.createObjectNode();
    p.put("EventId", eventId);
    p.put("EventType", "Reboot");
    p.put("ResourceType", "VirtualMachine");
    p.putArray("Resources").add(vm);
    p.put("EventStatus", status);
    p.put("NotBefore", notBefore);
    p.put("EventSource", "Platform");
    p.put("DurationInSeconds", -1);
    return p;
  }

  /**
   * One delivery in Event Grid's own schema of the event's properties, delivered now, with this
   * event type ({@code ...ScheduledEventEmitted}, or {@code
   * Microsoft.Maintenance/scheduledevents/write} as some of Microsoft's pages show it).
   */
  public static ObjectNode eventGridEvent(
      String deliveryId, String resourceId, ObjectNode properties, String eventType) {
    ObjectNode e = JSON.createObjectNode();
    e.put("id", deliveryId);
    e.put("topic", "/subscriptions/00000000-0000-0000-0000-000000000000");
    e.put("subject", resourceId);
    e.put("eventType", eventType);
    e.put("eventTime", Instant.now().toString());
    e.put("dataVersion", "1");
    e.put("metadataVersion", "1");
    resourceInfo(e, resourceId, properties, "microsoft.maintenance/scheduledevents");
    return e;
  }

  /** One delivery (CloudEvents 1.0) of the event's properties, delivered now. */
  public static ObjectNode cloudEvent(String deliveryId, String resourceId, ObjectNode properties) {
    ObjectNode e = JSON.createObjectNode();
    e.put("specversion", "1.0");
    e.put("id", deliveryId);
    e.put("type", "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted");
    e.put("source", "/subscriptions/00000000-0000-0000-0000-000000000000");
    e.put("time", Instant.now().toString());
    resourceInfo(e, resourceId, properties, "Microsoft.Maintenance/scheduledEvents");
    return e;
  }

  /**
   * The delivery's {@code data.resourceInfo}: the scheduled event, typed as this schema spells it.
   */
  private static void resourceInfo(
      ObjectNode delivery, String resourceId, ObjectNode properties, String type) {
    ObjectNode info = delivery.putObject("data").putObject("resourceInfo");
    info.put("id", resourceId);
    info.put("name", properties.path("EventId").asText());
    info.put("type", type);
    info.put("location", "westeurope");
    info.set("properties", properties);
  }
}
