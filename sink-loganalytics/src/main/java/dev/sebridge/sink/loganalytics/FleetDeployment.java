package dev.sebridge.sink.loganalytics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * {@code deploy/azure/fleet.json}: the ARM template of what the fleet service needs on Event Hubs
 * Premium, next to the agents' namespace that {@code sebridge.json} makes, equivalent to the
 * hand-written {@code deploy/azure/fleet.bicep} ({@code AzureDeployFilesTest} checks they declare
 * the same resources, API versions, parameters and roles). Both read the hubs from {@code
 * fleet-hubs.json} ({@link #hubsJson()}), which the fleet module's tests hold against the topics
 * the service itself creates and against its "topics are pre-created" check:
 *
 * <ul>
 *   <li>every hub the service and its Kafka Streams read and write, with the service's names
 *       (prefix, application id, audit topic as parameters), partitions aligned (the vm-state
 *       changelog takes the events hub's, the rest {@code fleet.partitions} or 1) and retention
 *       within Premium's 90 days;
 *   <li>the audit hub captured (Event Hubs Capture, Avro, the namespace's own identity) to a
 *       storage account whose lifecycle rule keeps it {@code auditRetentionInDays} (a year) and no
 *       longer;
 *   <li>a user-assigned identity for the service: Data Receiver on the namespace, Data Sender on
 *       its own hubs and the commands hub (never on the hubs agents and Azure write), no management
 *       role (it creates and alters no hub: {@code fleet.topics.pre-created=true});
 *   <li>optionally, the Event Grid system topic of the subscription's scheduled events ({@code
 *       Microsoft.ResourceNotifications.MaintenanceResources}, preview) and its subscription,
 *       delivering every event of it (CloudEvents 1.0, through the topic's own identity) to a hub
 *       of its own: the service filters, since Azure's event types are not consistent.
 * </ul>
 */
public final class FleetDeployment {
  /**
   * One hub. {@code name} is a {@code format()} pattern: {0} the topic prefix, {1} the Kafka
   * Streams application id, {2} the audit topic.
   *
   * @param partitions {@code fleet} ({@code fleet.partitions}), {@code events} (the events hub's:
   *     the vm-state changelog is co-partitioned with it) or {@code one}
   * @param cleanup {@code Compact} (the latest record per key) or {@code Delete}
   * @param keep for a deleting hub: {@code history} ({@code fleet.history-retention}) or {@code
   *     week}; null for a compacted one
   * @param capture whether Event Hubs Capture keeps it beyond the hub's retention (the audit trail)
   */
  record Hub(String name, String partitions, String cleanup, String keep, boolean capture) {}

  static final List<Hub> HUBS =
      List.of(
          view("{0}-views-vms", "fleet"),
          view("{0}-views-events", "fleet"),
          view("{0}-views-requests", "fleet"),
          view("{0}-views-rollouts", "one"),
          view("{0}-views-rollout-parts", "one"),
          view("{0}-views-policies", "one"),
          view("{0}-inventory", "fleet"),
          new Hub("{0}-rollouts", "one", "Delete", "history", false),
          new Hub("{2}", "fleet", "Delete", "history", true),
          new Hub("{0}-by-request", "fleet", "Delete", "week", false),
          new Hub("{0}-by-event", "fleet", "Delete", "week", false),
          view("{1}-vm-state-changelog", "events"),
          view("{1}-event-state-changelog", "fleet"),
          view("{1}-request-state-changelog", "fleet"),
          view("{1}-rollout-state-changelog", "one"),
          view("{1}-rollout-parts-state-changelog", "one"),
          view("{1}-policy-state-changelog", "one"),
          view("{1}-ledger-state-changelog", "one"));

  static final String STORAGE_BLOB_DATA_CONTRIBUTOR = "ba92f5b4-2d11-453d-a403-e96b0029c9fe";
  static final String AUDIT_CONTAINER = "sebridge-audit";
  static final String STORAGE_API = "2023-05-01";
  static final String EVENT_GRID_API = "2025-02-15";
  static final String TOPIC_TYPE = "Microsoft.ResourceNotifications.MaintenanceResources";
  static final int TOMBSTONE_HOURS = 24;
  static final int WEEK_HOURS = 168;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "parameters('namespaceName')";
  private static final String NS_ID = "resourceId('Microsoft.EventHub/namespaces', " + NS + ")";
  private static final String STORAGE_ID =
      "resourceId('Microsoft.Storage/storageAccounts', parameters('storageAccountName'))";
  private static final String IDENTITY_ID =
      "resourceId('Microsoft.ManagedIdentity/userAssignedIdentities',"
          + " parameters('fleetIdentityName'))";
  private static final String CENTRAL_HUB =
      "format('{0}-agentless-events', parameters('topicPrefix'))";
  private static final String HUB_NAME =
      "format(variables('fleetHubs')[copyIndex()].name, parameters('topicPrefix'),"
          + " parameters('applicationId'), parameters('approvalsHubName'))";
  private static final String CONTAINER_ID =
      "resourceId('Microsoft.Storage/storageAccounts/blobServices/containers',"
          + " parameters('storageAccountName'), 'default', '"
          + AUDIT_CONTAINER
          + "')";
  private static final String CAPTURE_ROLE =
      "guid(" + CONTAINER_ID + ", " + NS_ID + ", '" + STORAGE_BLOB_DATA_CONTRIBUTOR + "')";
  private static final String CENTRAL_HUB_ID =
      "resourceId('Microsoft.EventHub/namespaces/eventhubs', " + NS + ", " + CENTRAL_HUB + ")";
  private static final String TOPIC_ID =
      "resourceId('Microsoft.EventGrid/systemTopics', parameters('systemTopicName'))";
  private static final String CENTRAL = "[parameters('centralEvents')]";

  private FleetDeployment() {}

  private static Hub view(String name, String partitions) {
    return new Hub(name, partitions, "Compact", null, false);
  }

  /** {@code deploy/azure/fleet-hubs.json}: the hubs, read by both templates. */
  public static String hubsJson() {
    ArrayNode a = JSON.createArrayNode();
    for (Hub h : HUBS) {
      ObjectNode o = a.addObject();
      o.put("name", h.name()).put("partitions", h.partitions()).put("cleanup", h.cleanup());
      if (h.keep() == null) {
        o.putNull("keep");
      } else {
        o.put("keep", h.keep());
      }
      o.put("capture", h.capture());
    }
    return DeployDeclarations.write(a);
  }

  public static String armTemplate() {
    ObjectNode t = JSON.createObjectNode();
    t.put(
        "$schema",
        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#");
    t.put("contentVersion", "1.0.0.0");
    t.putObject("metadata")
        .put(
            "description",
            "The sebridge fleet service on Event Hubs Premium: its hubs, the audit trail's"
                + " capture, its identity and roles, and central delivery of scheduled events."
                + " Generated by FleetDeployment (do not edit; AzureDeployFilesTest checks it is"
                + " current); the same as fleet.bicep.");
    parameters(t.putObject("parameters"));

    ObjectNode v = t.putObject("variables");
    v.set("fleetHubs", readTree(hubsJson()));
    ObjectNode capture = v.putObject("auditCapture");
    capture
        .put("enabled", true)
        .put("encoding", "Avro")
        .put("intervalInSeconds", 300)
        .put("sizeLimitInBytes", 314572800)
        .put("skipEmptyArchives", true);
    ObjectNode dest = capture.putObject("destination");
    dest.put("name", "EventHubArchive.AzureBlockBlob");
    dest.putObject("identity").put("type", "SystemAssigned");
    dest.putObject("properties")
        .put("storageAccountResourceId", "[" + STORAGE_ID + "]")
        .put("blobContainer", AUDIT_CONTAINER)
        .put(
            "archiveNameFormat",
            "{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}");

    ArrayNode r = t.putArray("resources");
    storage(r);
    hubs(r);
    ObjectNode identity =
        resource(r, "Microsoft.ManagedIdentity/userAssignedIdentities", "2023-01-31");
    identity.put("name", "[parameters('fleetIdentityName')]");
    identity.put("location", "[parameters('location')]");
    String fleetPrincipal = "reference(" + IDENTITY_ID + ", '2023-01-31').principalId";
    // Reads every hub; sends to its own hubs and the commands hub only, never as an agent (the
    // events hub) or as Azure (the agentless-events hub); manages nothing.
    DeployDeclarations.role(
        r,
        "[format('Microsoft.EventHub/namespaces/{0}', " + NS + ")]",
        "guid(" + NS_ID + ", " + IDENTITY_ID + ", '" + AzureDeployment.DATA_RECEIVER + "')",
        AzureDeployment.DATA_RECEIVER,
        fleetPrincipal,
        List.of(IDENTITY_ID),
        null);
    String commandsHubId =
        "resourceId('Microsoft.EventHub/namespaces/eventhubs', "
            + NS
            + ", parameters('commandsHubName'))";
    DeployDeclarations.role(
        r,
        "[format('Microsoft.EventHub/namespaces/{0}/eventhubs/{1}', "
            + NS
            + ", parameters('commandsHubName'))]",
        "guid(" + commandsHubId + ", " + IDENTITY_ID + ", '" + AzureDeployment.DATA_SENDER + "')",
        AzureDeployment.DATA_SENDER,
        fleetPrincipal,
        List.of(IDENTITY_ID),
        null);
    ObjectNode sends = r.addObject();
    sends
        .putObject("copy")
        .put("name", "fleetSends")
        .put("count", "[length(variables('fleetHubs'))]");
    sends.put("type", "Microsoft.Authorization/roleAssignments");
    sends.put("apiVersion", "2022-04-01");
    sends.put(
        "scope",
        "[format('Microsoft.EventHub/namespaces/{0}/eventhubs/{1}', "
            + NS
            + ", "
            + HUB_NAME
            + ")]");
    sends.put(
        "name",
        "[guid(resourceId('Microsoft.EventHub/namespaces/eventhubs', "
            + NS
            + ", "
            + HUB_NAME
            + "), "
            + IDENTITY_ID
            + ", '"
            + AzureDeployment.DATA_SENDER
            + "')]");
    sends.putArray("dependsOn").add("fleetHubs").add("[" + IDENTITY_ID + "]");
    sends
        .putObject("properties")
        .put(
            "roleDefinitionId",
            "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '"
                + AzureDeployment.DATA_SENDER
                + "')]")
        .put("principalId", "[" + fleetPrincipal + "]")
        .put("principalType", "ServicePrincipal");
    central(r);

    ObjectNode out = t.putObject("outputs");
    DeployDeclarations.output(
        out, "fleetClientId", "[reference(" + IDENTITY_ID + ", '2023-01-31').clientId]");
    DeployDeclarations.output(out, "fleetIdentityId", "[" + IDENTITY_ID + "]");
    DeployDeclarations.output(
        out,
        "auditContainer",
        "[format('{0}/" + AUDIT_CONTAINER + "', " + "parameters('storageAccountName'))]");
    DeployDeclarations.output(
        out, "centralEventsHub", "[if(parameters('centralEvents'), " + CENTRAL_HUB + ", '')]");
    return DeployDeclarations.write(t);
  }

  private static void parameters(ObjectNode p) {
    DeployDeclarations.param(
        p, "location", "string", "[resourceGroup().location]", "Region of every resource.");
    DeployDeclarations.param(
        p,
        "namespaceName",
        "string",
        null,
        "The Event Hubs namespace sebridge.bicep made, on Premium (namespaceSku=Premium): Kafka"
            + " Streams, transactions and compacted hubs need it.");
    DeployDeclarations.param(
        p, "eventsHubName", "string", AzureDeployment.EVENTS_HUB, "The agents' events hub.");
    DeployDeclarations.param(
        p,
        "commandsHubName",
        "string",
        AzureDeployment.COMMANDS_HUB,
        "The agents' commands hub (the service sends to it).");
    DeployDeclarations.param(
        p, "topicPrefix", "string", "sebridge-fleet", "fleet.topic.prefix of the service.");
    DeployDeclarations.param(
        p, "applicationId", "string", "sebridge-fleet", "fleet.application-id of the service.");
    DeployDeclarations.param(
        p,
        "approvalsHubName",
        "string",
        "sebridge-fleet-approvals",
        "fleet.topic.approvals of the service: the audit trail.");
    DeployDeclarations.intParam(p, "partitions", 6, 1, 100, "fleet.partitions of the service.");
    DeployDeclarations.intParam(
        p,
        "historyRetentionInDays",
        30,
        30,
        90,
        "Retention of the audit and rollouts hubs: at least fleet.history-retention (30 days by"
            + " default); Premium keeps 90 days at most, Capture keeps the audit trail longer.");
    DeployDeclarations.intParam(
        p,
        "auditRetentionInDays",
        365,
        365,
        3650,
        "How long the captured audit trail is kept in the storage account.");
    DeployDeclarations.param(
        p,
        "storageAccountName",
        "string",
        null,
        "Storage account for the captured audit trail (made here).");
    DeployDeclarations.param(
        p,
        "fleetIdentityName",
        "string",
        "sebridge-fleet",
        "The fleet service's managed identity.");
    DeployDeclarations.param(
            p,
            "centralEvents",
            "bool",
            null,
            "Deliver the subscription's scheduled events through Event Grid (preview; one system"
                + " topic of this type per subscription).")
        .put("defaultValue", true);
    DeployDeclarations.param(
        p,
        "systemTopicName",
        "string",
        "sebridge-maintenance",
        "The Event Grid system topic of the subscription's scheduled events.");
  }

  private static void storage(ArrayNode r) {
    ObjectNode sa = resource(r, "Microsoft.Storage/storageAccounts", STORAGE_API);
    sa.put("name", "[parameters('storageAccountName')]");
    sa.put("location", "[parameters('location')]");
    sa.putObject("sku").put("name", "Standard_ZRS");
    sa.put("kind", "StorageV2");
    sa.putObject("properties")
        .put("minimumTlsVersion", "TLS1_2")
        .put("supportsHttpsTrafficOnly", true)
        .put("allowBlobPublicAccess", false)
        .put("allowSharedKeyAccess", false);

    String blobsId =
        "resourceId('Microsoft.Storage/storageAccounts/blobServices',"
            + " parameters('storageAccountName'), 'default')";
    ObjectNode blobs = resource(r, "Microsoft.Storage/storageAccounts/blobServices", STORAGE_API);
    blobs.put("name", "[format('{0}/default', parameters('storageAccountName'))]");
    blobs.putArray("dependsOn").add("[" + STORAGE_ID + "]");

    ObjectNode container =
        resource(r, "Microsoft.Storage/storageAccounts/blobServices/containers", STORAGE_API);
    container.put(
        "name",
        "[format('{0}/default/" + AUDIT_CONTAINER + "', parameters('storageAccountName'))]");
    container.putArray("dependsOn").add("[" + blobsId + "]");
    container.putObject("properties").put("publicAccess", "None");

    ObjectNode lifecycle =
        resource(r, "Microsoft.Storage/storageAccounts/managementPolicies", STORAGE_API);
    lifecycle.put("name", "[format('{0}/default', parameters('storageAccountName'))]");
    lifecycle.putArray("dependsOn").add("[" + STORAGE_ID + "]");
    ObjectNode rule =
        lifecycle
            .putObject("properties")
            .putObject("policy")
            .putArray("rules")
            .addObject()
            .put("name", "audit-retention")
            .put("enabled", true)
            .put("type", "Lifecycle");
    ObjectNode definition = rule.putObject("definition");
    ObjectNode filters = definition.putObject("filters");
    filters.putArray("blobTypes").add("blockBlob");
    filters.putArray("prefixMatch").add(AUDIT_CONTAINER + "/");
    definition
        .putObject("actions")
        .putObject("baseBlob")
        .putObject("delete")
        .put("daysAfterModificationGreaterThan", "[parameters('auditRetentionInDays')]");

    DeployDeclarations.role(
        r,
        "[format('Microsoft.Storage/storageAccounts/{0}/blobServices/default/containers/"
            + AUDIT_CONTAINER
            + "', parameters('storageAccountName'))]",
        CAPTURE_ROLE,
        STORAGE_BLOB_DATA_CONTRIBUTOR,
        "reference(" + NS_ID + ", '" + AzureDeployment.EH_API + "', 'full').identity.principalId",
        List.of(CONTAINER_ID),
        null);
  }

  private static void hubs(ArrayNode r) {
    String h = "variables('fleetHubs')[copyIndex()]";
    ObjectNode hub = r.addObject();
    hub.putObject("copy").put("name", "fleetHubs").put("count", "[length(variables('fleetHubs'))]");
    hub.put("type", "Microsoft.EventHub/namespaces/eventhubs");
    hub.put("apiVersion", AzureDeployment.EH_API);
    hub.put("name", "[format('{0}/{1}', " + NS + ", " + HUB_NAME + ")]");
    // Capture writes with the namespace's identity: its role on the container comes first.
    hub.putArray("dependsOn")
        .add("[" + CONTAINER_ID + "]")
        .add(
            "[extensionResourceId("
                + CONTAINER_ID
                + ", 'Microsoft.Authorization/roleAssignments', "
                + CAPTURE_ROLE
                + ")]");
    ObjectNode props = hub.putObject("properties");
    props.put(
        "partitionCount",
        "[if(equals("
            + h
            + ".partitions, 'events'), reference(resourceId('Microsoft.EventHub/namespaces/eventhubs', "
            + NS
            + ", parameters('eventsHubName')), '"
            + AzureDeployment.EH_API
            + "').partitionCount, if(equals("
            + h
            + ".partitions, 'one'), 1, parameters('partitions')))]");
    props.put(
        "retentionDescription",
        "[if(equals("
            + h
            + ".cleanup, 'Compact'), createObject('cleanupPolicy', 'Compact',"
            + " 'tombstoneRetentionTimeInHours', "
            + TOMBSTONE_HOURS
            + "), createObject('cleanupPolicy', 'Delete', 'retentionTimeInHours', if(equals("
            + h
            + ".keep, 'history'), mul(parameters('historyRetentionInDays'), 24), "
            + WEEK_HOURS
            + ")))]");
    props.put("captureDescription", "[if(" + h + ".capture, variables('auditCapture'), null())]");
  }

  private static void central(ArrayNode r) {
    ObjectNode hub = resource(r, "Microsoft.EventHub/namespaces/eventhubs", AzureDeployment.EH_API);
    hub.put("condition", CENTRAL);
    hub.put("name", "[format('{0}/{1}', " + NS + ", " + CENTRAL_HUB + ")]");
    ObjectNode props =
        hub.putObject("properties").put("partitionCount", "[parameters('partitions')]");
    props
        .putObject("retentionDescription")
        .put("cleanupPolicy", "Delete")
        .put("retentionTimeInHours", WEEK_HOURS);

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

  private static ObjectNode resource(ArrayNode r, String type, String api) {
    ObjectNode o = r.addObject();
    o.put("type", type);
    o.put("apiVersion", api);
    return o;
  }

  private static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
    try {
      return JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
