package dev.sebridge.sink.loganalytics;

import static dev.sebridge.sink.loganalytics.FleetDeployment.NS;
import static dev.sebridge.sink.loganalytics.FleetDeployment.resource;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Central delivery of the subscription's scheduled events (preview), in the fleet template: the
 * agentless-events hub, the Event Grid system topic of type {@value #TOPIC_TYPE} with its own
 * identity allowed to send there, and its subscription delivering every event of the topic in the
 * CloudEvents 1.0 schema (no event-type filter: Azure's own pages name the events inconsistently,
 * so the reader filters on the resource type). All on {@code centralEvents}.
 */
final class CentralDelivery {
  static final String EVENT_GRID_API = "2025-02-15";
  static final String TOPIC_TYPE = "Microsoft.ResourceNotifications.MaintenanceResources";
  static final String CENTRAL_HUB = "format('{0}-agentless-events', parameters('topicPrefix'))";
  private static final String CENTRAL_HUB_ID =
      "resourceId('Microsoft.EventHub/namespaces/eventhubs', " + NS + ", " + CENTRAL_HUB + ")";
  private static final String TOPIC_ID =
      "resourceId('Microsoft.EventGrid/systemTopics', parameters('systemTopicName'))";
  private static final String CENTRAL = "[parameters('centralEvents')]";

  private CentralDelivery() {}

  static void resources(ArrayNode r) {
    ObjectNode hub = resource(r, "Microsoft.EventHub/namespaces/eventhubs", AzureDeployment.EH_API);
    hub.put("condition", CENTRAL);
    hub.put("name", "[format('{0}/{1}', " + NS + ", " + CENTRAL_HUB + ")]");
    ObjectNode props =
        hub.putObject("properties").put("partitionCount", "[parameters('partitions')]");
    props
        .putObject("retentionDescription")
        .put("cleanupPolicy", "Delete")
        .put("retentionTimeInHours", FleetHubs.WEEK_HOURS);

    ObjectNode topic = resource(r, "Microsoft.EventGrid/systemTopics", EVENT_GRID_API);
    topic.put("condition", CENTRAL);
    topic.put("name", "[parameters('systemTopicName')]");
    topic.put("location", "global");
    topic.putObject("identity").put("type", "SystemAssigned");
    topic.putObject("properties").put("source", "[subscription().id]").put("topicType", TOPIC_TYPE);

    String topicSendName =
        "guid(" + CENTRAL_HUB_ID + ", " + TOPIC_ID + ", '" + AzureDeployment.DATA_SENDER + "')";
    DeployDeclarations.role(
        r,
        "[format('Microsoft.EventHub/namespaces/{0}/eventhubs/{1}', "
            + NS
            + ", "
            + CENTRAL_HUB
            + ")]",
        topicSendName,
        AzureDeployment.DATA_SENDER,
        "reference(" + TOPIC_ID + ", '" + EVENT_GRID_API + "', 'full').identity.principalId",
        List.of(CENTRAL_HUB_ID, TOPIC_ID),
        CENTRAL);

    ObjectNode sub =
        resource(r, "Microsoft.EventGrid/systemTopics/eventSubscriptions", EVENT_GRID_API);
    sub.put("condition", CENTRAL);
    sub.put("name", "[format('{0}/to-fleet', parameters('systemTopicName'))]");
    sub.putArray("dependsOn")
        .add("[" + TOPIC_ID + "]")
        .add(
            "[extensionResourceId("
                + CENTRAL_HUB_ID
                + ", 'Microsoft.Authorization/roleAssignments', "
                + topicSendName
                + ")]");
    ObjectNode sp = sub.putObject("properties");
    ObjectNode delivery = sp.putObject("deliveryWithResourceIdentity");
    delivery.putObject("identity").put("type", "SystemAssigned");
    ObjectNode destination = delivery.putObject("destination");
    destination.put("endpointType", "EventHub");
    destination.putObject("properties").put("resourceId", "[" + CENTRAL_HUB_ID + "]");
    sp.put("eventDeliverySchema", "CloudEventSchemaV1_0");
    sp.putObject("retryPolicy")
        .put("maxDeliveryAttempts", 30)
        .put("eventTimeToLiveInMinutes", 1440);
  }
}
