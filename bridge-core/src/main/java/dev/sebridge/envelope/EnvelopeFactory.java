package dev.sebridge.envelope;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.approval.ApprovalResult;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.track.Transition;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/**
 * Builds envelope v1 from transitions: the contract is docs/schemas.md, and where this sits in the
 * agent is docs/architecture.md.
 *
 * <p>Ids are deterministic: UUIDv5 of {@code vmId|EventId|transition|DocumentIncarnation}, EventId
 * in lower case, so the same change gets the same id across restarts and re-sends deduplicate.
 *
 * <p>An envelope never exceeds {@link Envelope#MAX_BYTES}: the Description is cut first, then any
 * other long text of the event, then the largest lists (entries dropped from the end) and unknown
 * objects; what was cut is listed in {@code data.truncated}. The envelope is never dropped.
 */
public final class EnvelopeFactory {
  public static final String SCHEMA_VERSION = "1.0";
  public static final String DATA_SCHEMA = "urn:sebridge:schema:scheduledevent:" + SCHEMA_VERSION;
  public static final String TYPE_PREFIX = "dev.sebridge.scheduledevent.";

  static final ObjectMapper JSON = new ObjectMapper(); // (one mapper: EnvelopeFit's too)

  private final AgentInfo agent;
  private final Clock clock;

  public EnvelopeFactory(AgentInfo agent, Clock clock) {
    this.agent = agent;
    this.clock = clock;
  }

  public static String typeOf(Transition t) {
    return TYPE_PREFIX + t.type().typeSegment() + ".v1";
  }

  public static UUID idOf(String vmId, Transition t) {
    return NameBasedUuid.v5(
        NameBasedUuid.SEBRIDGE_NAMESPACE,
        vmId + "|" + t.event().key() + "|" + t.type().typeSegment() + "|" + t.incarnation());
  }

  public Envelope scheduledEvent(Transition t, VmIdentity vm) {
    ScheduledEvent e = t.event();
    ObjectNode ce = JSON.createObjectNode();
    String id = idOf(vm.vmId(), t).toString();
    Instant time = t.observedAt() == null ? clock.instant() : t.observedAt();
    attributes(ce, id, typeOf(t), e.eventId(), time, DATA_SCHEMA, vm);

    ObjectNode data = ce.putObject("data");
    data.put("schemaVersion", SCHEMA_VERSION);
    data.put("transition", t.type().label());
    data.put("documentIncarnation", t.incarnation());
    data.put("affectsThisVm", e.lists(vm.name()));
    data.put("inferred", t.inferred());
    if (t.previousStatus() != null) {
      data.put("previousStatus", t.previousStatus());
    }
    data.put("notBeforeUtc", e.notBefore() == null ? null : formatTime(e.notBefore()));
    data.set("event", e.raw().deepCopy());
    data.set("vm", vmNode(vm));
    putAgent(data);

    byte[] body = EnvelopeFit.fit(ce);
    return new Envelope(id, typeOf(t), vm.source(), e.eventId(), vm.vmId(), time, body);
  }

  public static final String RESULT_TYPE = "dev.sebridge.approval.result.v1";

  /** 1.1 added the optional {@code resultKind}, {@code record} and {@code summary}. */
  public static final String RESULT_SCHEMA_VERSION = "1.1";

  public static final String RESULT_SCHEMA =
      "urn:sebridge:schema:approvalresult:" + RESULT_SCHEMA_VERSION;

  /**
   * An {@code approval.result} envelope. Its id is UUIDv5 of {@code vmId|result|<key>}: handling
   * the same command again yields the same id.
   */
  public Envelope approvalResult(ApprovalResult r, VmIdentity vm) {
    String id =
        NameBasedUuid.v5(NameBasedUuid.SEBRIDGE_NAMESPACE, vm.vmId() + "|result|" + r.key())
            .toString();
    Instant time = clock.instant();
    String subject =
        r.commandId() != null
            ? r.commandId()
            : r.eventIds().isEmpty() ? "unknown" : r.eventIds().get(0);
    ApprovalResult.Command command =
        r.origin() instanceof ApprovalResult.Command c
            ? c
            : new ApprovalResult.Command(null, null, null, null);
    ObjectNode ce = JSON.createObjectNode();
    attributes(ce, id, RESULT_TYPE, subject, time, RESULT_SCHEMA, vm);
    ObjectNode data = ce.putObject("data");
    data.put("schemaVersion", RESULT_SCHEMA_VERSION);
    data.put("origin", r.origin().label());
    data.put("resultKind", r.kind().label());
    data.put("commandId", command.commandId());
    data.put("outcome", r.outcome().label());
    data.put("reasonCode", r.reasonCode().label());
    data.put("reason", r.reason());
    var ids = data.putArray("eventIds");
    r.eventIds().forEach(ids::add);
    if (r.imdsStatus() == null) {
      data.putNull("imdsStatus");
    } else {
      data.put("imdsStatus", r.imdsStatus());
    }
    data.put("requestedBy", command.requestedBy());
    data.put("issuer", command.issuer());
    data.put("keyId", command.keyId());
    if (r.record() != null) {
      data.put("record", r.record());
    }
    if (r.summary() != null) {
      ObjectNode sum = data.putObject("summary");
      sum.put("rejected", r.summary().total());
      ObjectNode by = sum.putObject("byReason");
      r.summary().byReason().forEach(by::put);
      sum.put("firstRecord", r.summary().firstRecord());
      sum.put("lastRecord", r.summary().lastRecord());
      sum.put("since", formatTime(r.summary().since()));
      sum.put("until", formatTime(r.summary().until()));
    }
    ObjectNode v = data.putObject("vm");
    v.put("vmId", vm.vmId());
    v.put("name", vm.name());
    putAgent(data);
    return new Envelope(id, RESULT_TYPE, vm.source(), subject, vm.vmId(), time, bytes(ce));
  }

  public static final String HEARTBEAT_TYPE = "dev.sebridge.agent.heartbeat.v1";

  /**
   * 1.1: {@code data.vm} carries the whole identity, as in scheduled-event envelopes. 1.2: {@code
   * data.vm.sources} says where the vmId and the name came from (IMDS, configuration, SMBIOS, the
   * host name).
   */
  public static final String HEARTBEAT_SCHEMA_VERSION = "1.2";

  public static final String HEARTBEAT_SCHEMA =
      "urn:sebridge:schema:heartbeat:" + HEARTBEAT_SCHEMA_VERSION;

  /** A heartbeat envelope; id = UUIDv5 of {@code vmId|heartbeat|startedAt|sequence}. */
  public Envelope heartbeat(HeartbeatData h, VmIdentity vm) {
    String id =
        NameBasedUuid.v5(
                NameBasedUuid.SEBRIDGE_NAMESPACE,
                vm.vmId() + "|heartbeat|" + h.startedAt() + "|" + h.sequence())
            .toString();
    Instant time = clock.instant();
    ObjectNode ce = JSON.createObjectNode();
    attributes(ce, id, HEARTBEAT_TYPE, vm.vmId(), time, HEARTBEAT_SCHEMA, vm);
    ObjectNode data = ce.putObject("data");
    data.put("schemaVersion", HEARTBEAT_SCHEMA_VERSION);
    data.put("intervalSeconds", Math.max(1, h.interval().toSeconds()));
    data.put("startedAt", formatTime(h.startedAt()));
    ObjectNode polls = data.putObject("polls");
    polls.put("total", h.polls());
    polls.put("documents", h.documents());
    ObjectNode failures = polls.putObject("failures");
    h.failures().forEach(failures::put);
    polls.put("lastSuccessUtc", h.lastSuccess() == null ? null : formatTime(h.lastSuccess()));
    polls.put("lastIncarnation", h.lastIncarnation());
    data.put("knownEvents", h.knownEvents());
    ObjectNode outbox = data.putObject("outbox");
    outbox.put("bytes", h.outboxBytes());
    ObjectNode pending = outbox.putObject("pending");
    h.pendingBySink().forEach(pending::put);
    ObjectNode vmNode = vmNode(vm);
    if (vm.sources() != null) {
      vm.sources().writeTo(vmNode.putObject("sources"));
    }
    data.set("vm", vmNode);
    putAgent(data);
    return new Envelope(id, HEARTBEAT_TYPE, vm.source(), vm.vmId(), vm.vmId(), time, bytes(ce));
  }

  /** The CloudEvents attributes every sebridge envelope carries (structured JSON mode). */
  private static void attributes(
      ObjectNode ce,
      String id,
      String type,
      String subject,
      Instant time,
      String dataschema,
      VmIdentity vm) {
    ce.put("specversion", "1.0");
    ce.put("id", id);
    ce.put("source", vm.source());
    ce.put("type", type);
    ce.put("subject", subject);
    ce.put("time", formatTime(time));
    ce.put("datacontenttype", "application/json");
    ce.put("dataschema", dataschema);
    ce.put("partitionkey", vm.vmId());
  }

  private void putAgent(ObjectNode data) {
    ObjectNode a = data.putObject("agent");
    a.put("version", agent.version());
    a.put("hostName", agent.hostName());
  }

  static ObjectNode vmNode(VmIdentity vm) {
    ObjectNode n = JSON.createObjectNode();
    n.put("vmId", vm.vmId());
    n.put("name", vm.name());
    putIfSet(n, "resourceId", vm.resourceId());
    putIfSet(n, "subscriptionId", vm.subscriptionId());
    putIfSet(n, "resourceGroupName", vm.resourceGroupName());
    putIfSet(n, "location", vm.location());
    putIfSet(n, "zone", vm.zone());
    putIfSet(n, "vmScaleSetName", vm.vmScaleSetName());
    putIfSet(n, "osType", vm.osType());
    return n;
  }

  private static void putIfSet(ObjectNode n, String field, String value) {
    if (value != null && !value.isBlank()) {
      n.put(field, value);
    }
  }

  /** RFC 3339 UTC with milliseconds, as in the design's example. */
  public static String formatTime(Instant t) {
    Instant ms = t.truncatedTo(ChronoUnit.MILLIS);
    String s = ms.toString();
    // Instant.toString drops ".000"; keep a fixed shape for readers that sort as text.
    return ms.getNano() == 0 ? s.replace("Z", ".000Z") : s;
  }

  private static byte[] bytes(JsonNode n) {
    try {
      return JSON.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
