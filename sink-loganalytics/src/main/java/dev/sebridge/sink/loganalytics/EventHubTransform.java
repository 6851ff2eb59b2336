package dev.sebridge.sink.loganalytics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The data collection rule transformation for ingesting the events hub into the {@code
 * VmScheduledEvents_CL} table: Azure Monitor reads each event's body as {@code RawData}, and this
 * KQL turns the envelope into the same row {@link RowMapping} sends through the Logs Ingestion API.
 * So both paths fill the same columns and the queries under {@code deploy/kql/} work for either.
 * One expression per column of {@link RowMapping#COLUMNS}, in its order ({@code
 * AzureDeployFilesTest} checks both, and that every envelope field read exists in v1). Only
 * functions a transformation may call, and envelope fields by {@code e['name']} ({@code time},
 * {@code type}, {@code source} are KQL keywords): the validators module parses it with Microsoft's
 * Kusto.Language and checks every function against the supported list.
 */
public final class EventHubTransform {
  private EventHubTransform() {}

  /** Column name to the KQL computing it from {@code e}, the parsed envelope. */
  public static final Map<String, String> EXPRESSIONS = expressions();

  private static Map<String, String> expressions() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("TimeGenerated", "todatetime(e['time'])");
    m.put("VmId", first("tostring(e['data'].vm.vmId)", "tostring(e['partitionkey'])"));
    m.put("VmName", "tostring(e['data'].vm.name)");
    m.put(
        "ResourceId",
        first(
            "tostring(e['data'].vm.resourceId)",
            "iif(tostring(e['source']) startswith '/subscriptions/', tostring(e['source']), '')"));
    m.put(
        "ScheduledEventId",
        "iif(tostring(e['type']) startswith 'dev.sebridge.scheduledevent.'"
            + " or tostring(e['type']) == 'dev.sebridge.approval.result.v1',"
            + " tostring(e['subject']), '')");
    m.put("Transition", "tostring(e['data'].transition)");
    m.put("EventType", "tostring(e['data'].event.EventType)");
    m.put("EventStatus", "tostring(e['data'].event.EventStatus)");
    m.put("EventSource", "tostring(e['data'].event.EventSource)");
    m.put("NotBefore", "todatetime(e['data'].notBeforeUtc)");
    m.put("DurationSeconds", "toint(e['data'].event.DurationInSeconds)");
    m.put("Resources", "e['data'].event.Resources");
    m.put("AffectsThisVm", "tobool(e['data'].affectsThisVm)");
    m.put("Inferred", "tobool(e['data'].inferred)");
    m.put("DocumentIncarnation", "tolong(e['data'].documentIncarnation)");
    m.put("ApprovalOutcome", "tostring(e['data'].outcome)");
    m.put("ApprovalReasonCode", "tostring(e['data'].reasonCode)");
    m.put("CommandId", "tostring(e['data'].commandId)");
    m.put("AgentVersion", "tostring(e['data'].agent.version)");
    m.put("EnvelopeId", "tostring(e['id'])");
    m.put("CeType", "tostring(e['type'])");
    m.put("SchemaVersion", "tostring(e['data'].schemaVersion)");
    m.put("Envelope", "e");
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * The first string that is not empty: {@code coalesce} is not among the functions a
   * transformation may call (Microsoft's "Supported KQL features in Azure Monitor
   * transformations"), so {@code iif} and {@code strlen}, which are.
   */
  private static String first(String a, String b) {
    return "iif(strlen(" + a + ") > 0, " + a + ", " + b + ")";
  }

  /** The whole transformation, as the rule's {@code transformKql}. */
  public static String kql() {
    StringBuilder b = new StringBuilder();
    b.append("source\n| extend e = parse_json(RawData)\n| project\n");
    int i = 0;
    for (Map.Entry<String, String> c : EXPRESSIONS.entrySet()) {
      b.append("    ")
          .append(c.getKey())
          .append(" = ")
          .append(c.getValue())
          .append(++i < EXPRESSIONS.size() ? ",\n" : "\n");
    }
    return b.toString();
  }
}
