package dev.sebridge.sink.loganalytics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/**
 * One envelope, one row of the {@code VmScheduledEvents_CL} table. This list is the only place the
 * columns are defined: the DCR stream declaration and the table definition under {@code
 * deploy/loganalytics/} are generated from it ({@code LogAnalyticsDeployFilesTest} fails when they
 * disagree), and the sink sends exactly these columns.
 *
 * <p>Absent values are left out of the row (the column is empty in Log Analytics). No value is
 * larger than {@link #MAX_FIELD_BYTES}, where the Logs Ingestion API would truncate it: the whole
 * envelope always fits ({@link Envelope#MAX_BYTES} is kept under it), and a longer text or list in
 * another column is cut, with a mark.
 */
public final class RowMapping {
  /** The Logs Ingestion API's limit on one field value (64 KB, read as 64,000 bytes). */
  public static final int MAX_FIELD_BYTES = 64_000;

  static final String TRUNCATION_MARK = "…[truncated]";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Column types of Log Analytics custom tables and DCR stream declarations. */
  public enum Type {
    STRING("string"),
    INT("int"),
    LONG("long"),
    BOOLEAN("boolean"),
    DATETIME("datetime"),
    DYNAMIC("dynamic");

    private final String kusto;

    Type(String kusto) {
      this.kusto = kusto;
    }

    public String kusto() {
      return kusto;
    }
  }

  /** A column: its name, type, description, and how its value is read from an envelope. */
  public record Column(
      String name, Type type, String description, Function<JsonNode, JsonNode> extract) {}

  private static final String SCHEDULED_EVENT = EnvelopeFactory.TYPE_PREFIX;

  public static final List<Column> COLUMNS =
      List.of(
          new Column(
              "TimeGenerated",
              Type.DATETIME,
              "When the agent observed the change (envelope time, UTC).",
              e -> e.get("time")),
          new Column(
              "VmId",
              Type.STRING,
              "The VM's vmId (the envelopes' partition key).",
              e -> firstOf(at(e, "data", "vm", "vmId"), e.get("partitionkey"))),
          new Column("VmName", Type.STRING, "The VM's name.", e -> at(e, "data", "vm", "name")),
          new Column(
              "ResourceId",
              Type.STRING,
              "The VM's Azure resource ID.",
              e -> firstOf(at(e, "data", "vm", "resourceId"), resourceIdSource(e))),
          new Column(
              "ScheduledEventId",
              Type.STRING,
              "The IMDS EventId (transitions and approval results).",
              e -> isHeartbeat(e) ? null : e.get("subject")),
          new Column(
              "Transition",
              Type.STRING,
              "Scheduled, Started, Updated, Completed or Canceled (transitions only).",
              e -> at(e, "data", "transition")),
          new Column(
              "EventType",
              Type.STRING,
              "Freeze, Reboot, Redeploy, Preempt, Terminate, or what IMDS said.",
              e -> at(e, "data", "event", "EventType")),
          new Column(
              "EventStatus",
              Type.STRING,
              "The event's status in the IMDS document (Scheduled, Started, ...).",
              e -> at(e, "data", "event", "EventStatus")),
          new Column(
              "EventSource",
              Type.STRING,
              "Platform or User.",
              e -> at(e, "data", "event", "EventSource")),
          new Column(
              "NotBefore",
              Type.DATETIME,
              "Earliest start of the event (UTC); empty once started.",
              e -> at(e, "data", "notBeforeUtc")),
          new Column(
              "DurationSeconds",
              Type.INT,
              "Expected duration in seconds; -1 when unknown.",
              e -> asInt(at(e, "data", "event", "DurationInSeconds"))),
          new Column(
              "Resources",
              Type.DYNAMIC,
              "Names of the VMs the event affects.",
              e -> at(e, "data", "event", "Resources")),
          new Column(
              "AffectsThisVm",
              Type.BOOLEAN,
              "Whether this VM is among the Resources.",
              e -> at(e, "data", "affectsThisVm")),
          new Column(
              "Inferred",
              Type.BOOLEAN,
              "True when the transition was inferred (the agent did not see it happen).",
              e -> at(e, "data", "inferred")),
          new Column(
              "DocumentIncarnation",
              Type.LONG,
              "The IMDS document incarnation the change was seen in.",
              e -> at(e, "data", "documentIncarnation")),
          new Column(
              "ApprovalOutcome",
              Type.STRING,
              "Approval results: accepted, rejected or failed.",
              e -> at(e, "data", "outcome")),
          new Column(
              "ApprovalReasonCode",
              Type.STRING,
              "Approval results: the reason code.",
              e -> at(e, "data", "reasonCode")),
          new Column(
              "CommandId",
              Type.STRING,
              "Approval results: the command's id (empty for local policy).",
              e -> at(e, "data", "commandId")),
          new Column(
              "AgentVersion",
              Type.STRING,
              "The sebridge version that sent the envelope.",
              e -> at(e, "data", "agent", "version")),
          new Column("EnvelopeId", Type.STRING, "The envelope's id.", e -> e.get("id")),
          new Column("CeType", Type.STRING, "The CloudEvents type.", e -> e.get("type")),
          new Column(
              "SchemaVersion",
              Type.STRING,
              "The envelope's schema version.",
              e -> at(e, "data", "schemaVersion")),
          new Column("Envelope", Type.DYNAMIC, "The whole envelope.", e -> e));

  private RowMapping() {}

  /** The row of one envelope: column name to JSON value, absent values left out. */
  public static ObjectNode row(Envelope envelope) {
    JsonNode ce;
    try {
      ce = JSON.readTree(envelope.body());
    } catch (IOException e) {
      throw new UncheckedIOException("envelope " + envelope.id() + " is not JSON", e);
    }
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    for (Column c : COLUMNS) {
      JsonNode v = c.extract().apply(ce);
      if (v == null || v.isNull() || v.isMissingNode()) {
        continue;
      }
      row.set(c.name(), clip(v));
    }
    return row;
  }

  /** The serialized row, as sent. */
  public static byte[] serialize(JsonNode row) {
    try {
      return JSON.writeValueAsBytes(row);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Cuts a text or a list that would be longer than a field may be; other values are kept. */
  static JsonNode clip(JsonNode v) {
    if (serialize(v).length <= MAX_FIELD_BYTES) {
      return v;
    }
    if (v.isTextual()) {
      byte[] utf8 = v.asText().getBytes(StandardCharsets.UTF_8);
      String cut = new String(utf8, 0, MAX_FIELD_BYTES / 2, StandardCharsets.UTF_8);
      // Escaping can double a text's size: shorten until it fits.
      while (serialize(TextNode.valueOf(cut + TRUNCATION_MARK)).length > MAX_FIELD_BYTES) {
        cut = cut.substring(0, cut.length() * 3 / 4);
      }
      return TextNode.valueOf(cut + TRUNCATION_MARK);
    }
    if (v.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      int budget = MAX_FIELD_BYTES - serialize(TextNode.valueOf(TRUNCATION_MARK)).length - 8;
      for (JsonNode item : v) {
        int size = serialize(item).length + 1;
        if (size > budget) {
          break;
        }
        budget -= size;
        out.add(item);
      }
      out.add(TRUNCATION_MARK);
      return out;
    }
    return v;
  }

  private static JsonNode at(JsonNode n, String... path) {
    JsonNode cur = n;
    for (String p : path) {
      if (cur == null || !cur.isObject()) {
        return null;
      }
      cur = cur.get(p);
    }
    return cur;
  }

  private static JsonNode firstOf(JsonNode a, JsonNode b) {
    return a != null && !a.isNull() ? a : b;
  }

  private static JsonNode resourceIdSource(JsonNode e) {
    JsonNode s = e.get("source");
    return s != null && s.asText().startsWith("/subscriptions/") ? s : null;
  }

  /** Transitions and approval results carry an EventId as their subject; heartbeats the vmId. */
  private static boolean isHeartbeat(JsonNode e) {
    String t = e.path("type").asText();
    return !(t.startsWith(SCHEDULED_EVENT) || t.equals(EnvelopeFactory.RESULT_TYPE));
  }

  /** IMDS sends DurationInSeconds as a number; older documents and odd ones as a string. */
  private static JsonNode asInt(JsonNode v) {
    if (v == null || v.isIntegralNumber()) {
      return v;
    }
    if (v.isTextual()) {
      try {
        return JsonNodeFactory.instance.numberNode(Integer.parseInt(v.asText().trim()));
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}
