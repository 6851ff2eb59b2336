package dev.sebridge.fleet.agentless;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Azure's central deliveries as Microsoft's pages show them, and as they disagree: both schemas,
 * both event type names, property names in either case, a NotBefore with a wrong weekday.
 */
class CentralEventParserTest {
  static final String VM_EVENT_ID =
      "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-1"
          + "/providers/microsoft.maintenance/scheduledevents/AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01";

  final CentralEventParser parser = new CentralEventParser(new ObjectMapper());

  static String properties(String status, String notBefore) {
    return """
        {"EventId": "AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01", "EventType": "Reboot",
         "ResourceType": "VirtualMachine", "Resources": ["web-1", "web-2"],
         "EventStatus": "%s", "NotBefore": "%s", "Description": "Host update",
         "EventSource": "Platform", "DurationInSeconds": -1}"""
        .formatted(status, notBefore);
  }

  static String eventGrid(String id, String eventType, String resourceType, String properties) {
    return """
        {"id": "%s", "topic": "/subscriptions/0000", "subject": "%s",
         "eventType": "%s", "eventTime": "2025-09-19T17:00:05.123Z", "dataVersion": "1",
         "data": {"resourceInfo": {"id": "%s", "name": "AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01",
           "type": "%s", "location": "westeurope", "properties": %s},
           "apiVersion": "2023-10-01-preview"}}"""
        .formatted(id, VM_EVENT_ID, eventType, VM_EVENT_ID, resourceType, properties);
  }

  List<Delivery> parse(String json) {
    return parser.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  AzureScheduledEvent event(String json) {
    List<Delivery> d = parse(json);
    assertThat(d).hasSize(1).first().isInstanceOf(Delivery.Event.class);
    return ((Delivery.Event) d.get(0)).event();
  }

  @Test
  void anEventGridEventOfAVmIsReadWhateverItsEventTypeSays() {
    for (String type :
        List.of(
            "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted",
            "microsoft.maintenance/scheduledevents/write")) {
      AzureScheduledEvent e =
          event(
              eventGrid(
                  "d-1",
                  type,
                  "Microsoft.Maintenance/scheduledEvents",
                  properties("Scheduled", "Mon, 19 Sep 2025 18:29:47 GMT")));
      assertThat(e.deliveryId()).isEqualTo("d-1");
      assertThat(e.key()).isEqualTo("ab5c6a36-1e5a-4d5c-8b3e-6e2a9e3f1c01");
      assertThat(e.status()).isEqualTo(AzureEventStatus.SCHEDULED);
      assertThat(e.eventType()).isEqualTo("Reboot");
      assertThat(e.eventSource()).isEqualTo("Platform");
      assertThat(e.resources()).containsExactly("web-1", "web-2");
      assertThat(e.durationInSeconds()).isEqualTo(-1);
      assertThat(e.description()).isEqualTo("Host update");
      assertThat(e.location()).isEqualTo("westeurope");
      assertThat(e.deliveredAt()).isEqualTo(Instant.parse("2025-09-19T17:00:05.123Z"));
      // 19 September 2025 was a Friday: the date is taken, the weekday is not checked
      assertThat(e.notBefore()).isEqualTo(Instant.parse("2025-09-19T18:29:47Z"));
      assertThat(e.parentResourceId())
          .isEqualTo(
              "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-1");
    }
  }

  @Test
  void aCloudEventsDeliveryInAnArrayWithCamelCasePropertiesIsReadToo() {
    String ce =
        """
        [{"specversion": "1.0", "id": "d-2", "type": "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted",
          "source": "/subscriptions/0000", "subject": "x", "time": "2025-09-19T18:30:00Z",
          "data": {"resourceInfo": {"id": "%s", "name": "ab5c6a36-1e5a-4d5c-8b3e-6e2a9e3f1c01",
            "type": "MICROSOFT.MAINTENANCE/SCHEDULEDEVENTS",
            "properties": {"eventId": "AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01", "eventType": "Freeze",
              "resourceType": "virtualmachine", "resources": ["web-1"], "eventStatus": "Started",
              "notBefore": "", "durationInSeconds": "5", "eventSource": "User"}}}}]"""
            .formatted(VM_EVENT_ID);
    AzureScheduledEvent e = event(ce);
    assertThat(e.deliveryId()).isEqualTo("d-2");
    assertThat(e.status()).isEqualTo(AzureEventStatus.STARTED);
    assertThat(e.notBefore()).as("empty once Started").isNull();
    assertThat(e.durationInSeconds()).isEqualTo(5);
    assertThat(e.eventSource()).isEqualTo("User");
    assertThat(e.deliveredAt()).isEqualTo(Instant.parse("2025-09-19T18:30:00Z"));
    assertThat(e.location()).isNull();
  }

  @Test
  void theStatusesOnlyCentralDeliveryKnowsAreRead() {
    assertThat(
            event(
                    eventGrid(
                        "d",
                        "x",
                        "microsoft.maintenance/scheduledevents",
                        properties("Completed", "")))
                .status())
        .isEqualTo(AzureEventStatus.COMPLETED);
    assertThat(
            event(
                    eventGrid(
                        "d",
                        "x",
                        "microsoft.maintenance/scheduledevents",
                        properties("Cancelled", "")))
                .status())
        .isEqualTo(AzureEventStatus.CANCELED);
    assertThat(AzureEventStatus.CANCELED.over()).isTrue();
    assertThat(AzureEventStatus.STARTED.over()).isFalse();
  }

  @Test
  void otherResourcesAndOtherResourceTypesAreIgnoredWithTheReason() {
    List<Delivery> other =
        parse(
            eventGrid(
                "d-3",
                "Microsoft.ResourceNotifications.HealthResources.AvailabilityStatusChanged",
                "Microsoft.ResourceHealth/availabilityStatuses",
                "{}"));
    assertThat(other)
        .singleElement()
        .isEqualTo(
            new Delivery.Ignored(
                "d-3",
                "resourceInfo.type Microsoft.ResourceHealth/availabilityStatuses:"
                    + " Microsoft.ResourceNotifications.HealthResources.AvailabilityStatusChanged"));
    List<Delivery> aks =
        parse(
            eventGrid(
                "d-4",
                "x",
                "microsoft.maintenance/scheduledevents",
                properties("Scheduled", "").replace("\"VirtualMachine\"", "\"ManagedCluster\"")));
    assertThat(aks)
        .singleElement()
        .isEqualTo(new Delivery.Ignored("d-4", "ResourceType ManagedCluster"));
  }

  @Test
  void aScheduledEventThatCannotBeReadIsMalformedNeverNoEvent() {
    String good = properties("Scheduled", "");
    String type = "microsoft.maintenance/scheduledevents";
    assertThat(malformed("not json at all")).startsWith("not JSON");
    assertThat(malformed("[]")).isEqualTo("an empty array");
    assertThat(malformed("[1]")).isEqualTo("an event is not a JSON object");
    assertThat(malformed("{\"id\": \"d\", \"data_base64\": \"AAAA\"}")).contains("data_base64");
    assertThat(
            malformed(
                eventGrid(
                    "d",
                    "x",
                    type,
                    good.replace("\"EventId\": \"AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01\",", ""))))
        .isEqualTo("no EventId");
    assertThat(malformed(eventGrid("d", "x", type, good.replace("Scheduled", "Paused"))))
        .isEqualTo("EventStatus Paused is not known");
    assertThat(
            malformed(
                eventGrid(
                    "d", "x", type, good.replace("\"ResourceType\": \"VirtualMachine\",", ""))))
        .isEqualTo("no ResourceType");
    assertThat(
            malformed(
                eventGrid("d", "x", type, good.replace("[\"web-1\", \"web-2\"]", "\"web-1\""))))
        .isEqualTo("Resources is not a list");
    assertThat(
            malformed(
                eventGrid(
                    "d", "x", type, good.replace("[\"web-1\", \"web-2\"]", "[\"web-1\", 7]"))))
        .isEqualTo("Resources holds 7, not a VM name");
    assertThat(
            malformed(
                eventGrid("d", "x", type, good)
                    .replace(
                        "scheduledevents/AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01\", \"name\"",
                        "scheduledevents/other\", \"name\"")))
        .startsWith("resourceInfo.id ")
        .endsWith(
            "is not the scheduled event AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01"
                + " of a VM, scale set or availability set");
    assertThat(
            malformed(
                eventGrid("d", "x", type, good)
                    .replace(
                        "\"name\": \"AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01\"",
                        "\"name\": \"other\"")))
        .isEqualTo(
            "resourceInfo.name other is not the EventId AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01");
  }

  @Test
  void whatAzureMaySendOtherwiseIsReadAndWhatCannotBeTrustedIsMalformed() {
    String type = "microsoft.maintenance/scheduledevents";
    String good = properties("Scheduled", "Mon, 19 Sep 2025 18:29:47 GMT");
    // a whole number of seconds written as 5.0 or "5.0"; anything else is unknown (-1), the
    // event is kept
    assertThat(event(eventGrid("d", "x", type, good.replace("-1}", "5.0}"))).durationInSeconds())
        .isEqualTo(5);
    assertThat(
            event(eventGrid("d", "x", type, good.replace("-1}", "\"5.0\"}"))).durationInSeconds())
        .isEqualTo(5);
    assertThat(
            event(eventGrid("d", "x", type, good.replace("-1}", "\"soon\"}"))).durationInSeconds())
        .isEqualTo(-1);
    // data as a JSON string
    String grid = eventGrid("d-5", "x", type, good);
    int at = grid.indexOf("\"data\": ") + 8;
    String data = grid.substring(at, grid.length() - 1);
    String stringData =
        grid.substring(0, at) + new ObjectMapper().valueToTree(data).toString() + "}";
    assertThat(event(stringData).deliveryId()).isEqualTo("d-5");
    // a CloudEvent in binary mode: the body is the data, the id a header
    AzureScheduledEvent binary =
        parser
            .parse(
                data.getBytes(StandardCharsets.UTF_8),
                h ->
                    switch (h) {
                      case "ce_id" -> "d-6";
                      case "ce_time" -> "2025-09-19T18:00:00Z";
                      default -> null;
                    })
            .stream()
            .map(d -> ((Delivery.Event) d).event())
            .findFirst()
            .orElseThrow();
    assertThat(binary.deliveryId()).isEqualTo("d-6");
    assertThat(binary.deliveredAt()).isEqualTo(Instant.parse("2025-09-19T18:00:00Z"));
    // a scale set's event
    String vmss = VM_EVENT_ID.replace("virtualMachines/web-1", "virtualMachineScaleSets/web");
    assertThat(event(eventGrid("d", "x", type, good).replace(VM_EVENT_ID, vmss)).parentResourceId())
        .endsWith("/virtualMachineScaleSets/web");

    assertThat(malformed(eventGrid("d", "x", type, properties("Scheduled", "Mon, 19 Sep"))))
        .isEqualTo("NotBefore Mon, 19 Sep is not a date any producer writes");
    assertThat(malformed(eventGrid("d", "x", type, good.replace("[\"web-1\", \"web-2\"]", "[]"))))
        .isEqualTo("a SCHEDULED event that lists no VM");
    assertThat(
            malformed(
                eventGrid("d", "x", type, good)
                    .replace(
                        "Microsoft.Compute/virtualMachines", "Microsoft.Network/loadBalancers")))
        .contains("of a VM, scale set or availability set");
    assertThat(
            malformed(
                "{\"id\": \"d\", \"eventType\":"
                    + " \"Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted\","
                    + " \"data\": {}}"))
        .contains("without data.resourceInfo");
    assertThat(malformed(eventGrid("d", "x", type, properties("X".repeat(5000), ""))))
        .hasSizeLessThan(300);
    // nothing Azure sends: an EventId no view could be keyed by
    String eventId = "AB5C6A36-1E5A-4D5C-8B3E-6E2A9E3F1C01";
    assertThat(malformed(eventGrid("d", "x", type, good).replace(eventId, "AB5C\\ud800")))
        .isEqualTo("EventId: an id with a lone surrogate (not UTF-16)");
    assertThat(malformed(eventGrid("d", "x", type, good).replace(eventId, "E".repeat(300))))
        .isEqualTo("EventId: an id longer than 256 characters");
    // nothing Azure sends: more events in one record than the parser takes
    assertThat(malformed("[" + "{},".repeat(CentralEventParser.MAX_EVENTS_PER_RECORD) + "{}]"))
        .endsWith("events in one record");
  }

  private String malformed(String json) {
    List<Delivery> d = parse(json);
    assertThat(d).singleElement().isInstanceOf(Delivery.Malformed.class);
    return ((Delivery.Malformed) d.get(0)).reason();
  }
}
