package dev.sebridge.sink.loganalytics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The files under {@code deploy/loganalytics/}, generated from {@link RowMapping#COLUMNS} so the
 * table, the DCR stream declaration and the rows the sink sends cannot drift apart:
 *
 * <ul>
 *   <li>{@code columns.json}: the column list (name, type, description), for tools and Bicep's
 *       {@code loadJsonContent};
 *   <li>{@code logs-ingestion.json}: an ARM template creating the {@code VmScheduledEvents_CL}
 *       table, a direct-ingestion data collection rule with that stream, and the Monitoring Metrics
 *       Publisher role for the agents' identity.
 * </ul>
 */
public final class DeployDeclarations {
  public static final String TABLE = "VmScheduledEvents_CL";
  public static final String STREAM = "Custom-" + TABLE;

  /** Built-in role allowed to upload to a DCR. */
  static final String MONITORING_METRICS_PUBLISHER = "3913510d-42f4-4e42-8a64-420c390055eb";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private DeployDeclarations() {}

  public static String columnsJson() {
    return write(columns());
  }

  /** The columns as the table declares them: name, type, description. */
  static ArrayNode columns() {
    ArrayNode cols = JSON.createArrayNode();
    for (RowMapping.Column c : RowMapping.COLUMNS) {
      cols.addObject()
          .put("name", c.name())
          .put("type", c.type().kusto())
          .put("description", c.description());
    }
    return cols;
  }

  public static String armTemplate() {
    ObjectNode t =
        template(
            "sebridge Log Analytics sink: the "
                + TABLE
                + " table, a data collection rule taking rows on the "
                + STREAM
                + " stream through the Logs Ingestion API, and the role the agents' identity needs."
                + " Generated from RowMapping by LogAnalyticsDeployFilesTest; do not edit by hand.");

    ObjectNode params = t.putObject("parameters");
    param(params, "workspaceName", "string", null, "Existing Log Analytics workspace.");
    param(
        params,
        "location",
        "string",
        "[resourceGroup().location]",
        "Region of the rule: the workspace's region.");
    param(
        params,
        "dataCollectionRuleName",
        "string",
        "sebridge-vm-scheduled-events",
        "Name of the data collection rule.");
    param(
        params,
        "agentPrincipalId",
        "string",
        "",
        "Object (principal) id of the agents' managed identity; empty to assign the role"
            + " yourself.");
    ObjectNode retention =
        param(params, "retentionInDays", "int", null, "Interactive retention of the table.");
    retention.put("defaultValue", 90);
    retention.put("minValue", 4);
    retention.put("maxValue", 730);

    ArrayNode resources = t.putArray("resources");
    table(resources, "retentionInDays");

    ObjectNode dcr = resources.addObject();
    dcr.put("type", "Microsoft.Insights/dataCollectionRules");
    dcr.put("apiVersion", "2023-03-11");
    dcr.put("name", "[parameters('dataCollectionRuleName')]");
    dcr.put("location", "[parameters('location')]");
    dcr.put("kind", "Direct");
    dcr.putArray("dependsOn")
        .add(
            "[resourceId('Microsoft.OperationalInsights/workspaces/tables',"
                + " parameters('workspaceName'), '"
                + TABLE
                + "')]");
    ObjectNode dcrProps = dcr.putObject("properties");
    ArrayNode streamCols =
        dcrProps.putObject("streamDeclarations").putObject(STREAM).putArray("columns");
    for (RowMapping.Column c : RowMapping.COLUMNS) {
      streamCols.addObject().put("name", c.name()).put("type", c.type().kusto());
    }
    intoTable(dcrProps, STREAM, "source");

    ObjectNode role = resources.addObject();
    role.put("condition", "[not(empty(parameters('agentPrincipalId')))]");
    role.put("type", "Microsoft.Authorization/roleAssignments");
    role.put("apiVersion", "2022-04-01");
    role.put(
        "scope",
        "[format('Microsoft.Insights/dataCollectionRules/{0}',"
            + " parameters('dataCollectionRuleName'))]");
    role.put(
        "name",
        "[guid(resourceId('Microsoft.Insights/dataCollectionRules',"
            + " parameters('dataCollectionRuleName')), parameters('agentPrincipalId'), '"
            + MONITORING_METRICS_PUBLISHER
            + "')]");
    role.putArray("dependsOn")
        .add(
            "[resourceId('Microsoft.Insights/dataCollectionRules',"
                + " parameters('dataCollectionRuleName'))]");
    role.putObject("properties")
        .put(
            "roleDefinitionId",
            "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '"
                + MONITORING_METRICS_PUBLISHER
                + "')]")
        .put("principalId", "[parameters('agentPrincipalId')]")
        .put("principalType", "ServicePrincipal");

    ObjectNode outputs = t.putObject("outputs");
    String ref =
        "reference(resourceId('Microsoft.Insights/dataCollectionRules',"
            + " parameters('dataCollectionRuleName')), '2023-03-11')";
    output(outputs, "endpoint", "[" + ref + ".endpoints.logsIngestion]");
    output(outputs, "ruleId", "[" + ref + ".immutableId]");
    outputs.putObject("stream").put("type", "string").put("value", STREAM);
    return write(t);
  }

  /** The {@code VmScheduledEvents_CL} table in the workspace named by {@code workspaceName}. */
  static ObjectNode table(ArrayNode resources, String retentionParameter) {
    ObjectNode table = resources.addObject();
    table.put("type", "Microsoft.OperationalInsights/workspaces/tables");
    table.put("apiVersion", "2022-10-01");
    table.put("name", "[format('{0}/{1}', parameters('workspaceName'), '" + TABLE + "')]");
    ObjectNode tableProps = table.putObject("properties");
    tableProps.put("plan", "Analytics");
    tableProps.put("retentionInDays", "[parameters('" + retentionParameter + "')]");
    ObjectNode schema = tableProps.putObject("schema");
    schema.put("name", TABLE);
    schema.set("columns", columns());
    return table;
  }

  /**
   * A rule's destination (the workspace named by {@code workspaceName}) and its one data flow from
   * {@code inputStream} through {@code transformKql} into the table.
   */
  static void intoTable(ObjectNode dcrProps, String inputStream, String transformKql) {
    dcrProps
        .putObject("destinations")
        .putArray("logAnalytics")
        .addObject()
        .put(
            "workspaceResourceId",
            "[resourceId('Microsoft.OperationalInsights/workspaces', parameters('workspaceName'))]")
        .put("name", "workspace");
    ObjectNode flow = dcrProps.putArray("dataFlows").addObject();
    flow.putArray("streams").add(inputStream);
    flow.putArray("destinations").add("workspace");
    flow.put("transformKql", transformKql);
    flow.put("outputStream", STREAM);
  }

  /** An empty ARM template: its schema, content version and description. */
  static ObjectNode template(String description) {
    ObjectNode t = JSON.createObjectNode();
    t.put(
        "$schema",
        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#");
    t.put("contentVersion", "1.0.0.0");
    t.putObject("metadata").put("description", description);
    return t;
  }

  static ObjectNode param(
      ObjectNode params, String name, String type, String def, String description) {
    ObjectNode p = params.putObject(name);
    p.put("type", type);
    if (def != null) {
      p.put("defaultValue", def);
    }
    p.putObject("metadata").put("description", description);
    return p;
  }

  static void output(ObjectNode outputs, String name, String value) {
    outputs.putObject(name).put("type", "string").put("value", value);
  }

  static void intParam(
      ObjectNode params, String name, int def, int min, int max, String description) {
    ObjectNode n = param(params, name, "int", null, description);
    n.put("defaultValue", def);
    n.put("minValue", min);
    n.put("maxValue", max);
  }

  /**
   * A role assignment at {@code scope} (an ARM expression) for a principal (an expression), named
   * {@code name} (an expression known at the start of the deployment, so never a reference()),
   * after {@code dependsOn} (resource id expressions), deployed when {@code condition} (null:
   * always). Returned for what only some assignments have (a copy loop).
   */
  static ObjectNode role(
      ArrayNode r,
      String scope,
      String name,
      String role,
      String principal,
      java.util.List<String> dependsOn,
      String condition) {
    ObjectNode a = r.addObject();
    if (condition != null) {
      a.put("condition", condition);
    }
    a.put("type", "Microsoft.Authorization/roleAssignments");
    a.put("apiVersion", "2022-04-01");
    a.put("scope", scope);
    a.put("name", "[" + name + "]");
    ArrayNode deps = a.putArray("dependsOn");
    dependsOn.forEach(d -> deps.add("[" + d + "]"));
    a.putObject("properties")
        .put(
            "roleDefinitionId",
            "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '" + role + "')]")
        .put("principalId", "[" + principal + "]")
        .put("principalType", "ServicePrincipal");
    return a;
  }

  static String write(Object node) {
    try {
      return JSON.writeValueAsString(node) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
