package dev.sebridge.sink.loganalytics;

import static dev.sebridge.sink.loganalytics.FleetDeployment.NS;
import static dev.sebridge.sink.loganalytics.FleetDeployment.NS_ID;
import static dev.sebridge.sink.loganalytics.FleetDeployment.resource;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The fleet template's hubs ({@code fleet-hubs.json}, the copy loop over them) and the audit
 * trail's Capture: the storage account, its container, the lifecycle rule that keeps the trail
 * {@code auditRetentionInDays} and no longer, and the namespace identity's role on the container.
 */
final class FleetHubs {
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
          new Hub("{0}-acknowledgements", "fleet", "Delete", "week", false),
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
  static final int TOMBSTONE_HOURS = 24;
  static final int WEEK_HOURS = 168;

  private static final ObjectMapper JSON = new ObjectMapper();
  static final String STORAGE_ID =
      "resourceId('Microsoft.Storage/storageAccounts', parameters('storageAccountName'))";

  /** The hub's name in the copy loop over {@code fleetHubs}. */
  static final String HUB_NAME =
      "format(variables('fleetHubs')[copyIndex()].name, parameters('topicPrefix'),"
          + " parameters('applicationId'), parameters('approvalsHubName'))";

  private static final String CONTAINER_ID =
      "resourceId('Microsoft.Storage/storageAccounts/blobServices/containers',"
          + " parameters('storageAccountName'), 'default', '"
          + AUDIT_CONTAINER
          + "')";
  private static final String CAPTURE_ROLE =
      "guid(" + CONTAINER_ID + ", " + NS_ID + ", '" + STORAGE_BLOB_DATA_CONTRIBUTOR + "')";

  private FleetHubs() {}

  private static Hub view(String name, String partitions) {
    return new Hub(name, partitions, "Compact", null, false);
  }

  /** {@code deploy/azure/fleet-hubs.json}: the hubs, read by both templates. */
  static String json() {
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

  /** The {@code auditCapture} variable: the audit hub's Capture description. */
  static void captureVariable(ObjectNode v) {
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
  }

  static void storage(ArrayNode r) {
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

  static void hubs(ArrayNode r) {
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
}
