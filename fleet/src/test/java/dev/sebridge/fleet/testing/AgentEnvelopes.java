package dev.sebridge.fleet.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.approval.ApprovalResult;
import dev.sebridge.approval.ReasonCode;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.MalformedDocumentException;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.track.Transition;
import dev.sebridge.track.TransitionType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Envelopes exactly as an agent writes them (the agent's own {@link EnvelopeFactory}), for the
 * fleet service's tests and benchmarks.
 */
public final class AgentEnvelopes {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter IMDS_TIME =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);

  private final EnvelopeFactory factory;
  private final Clock clock;
  private long incarnation = 1;
  private long sequence;

  public AgentEnvelopes(Clock clock) {
    this.clock = clock;
    this.factory = new EnvelopeFactory(new AgentInfo("0.1.0-test", "fleet-test"), clock);
  }

  /** A VM of the test fleet: vmId, name, zone and scale set. */
  public static VmIdentity vm(String vmId, String name, String zone, String scaleSet) {
    return new VmIdentity(
        vmId,
        name,
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/fleet-rg/providers/"
            + "Microsoft.Compute/virtualMachines/"
            + name,
        "00000000-0000-0000-0000-000000000000",
        "fleet-rg",
        "westeurope",
        zone,
        scaleSet,
        "Linux");
  }

  /** An IMDS event as the endpoint returns it. */
  public static ObjectNode imdsEvent(
      String eventId, String type, String status, List<String> resources, Instant notBefore) {
    ObjectNode e = JSON.createObjectNode();
    e.put("EventId", eventId);
    e.put("EventType", type);
    e.put("ResourceType", "VirtualMachine");
    var r = e.putArray("Resources");
    resources.forEach(r::add);
    e.put("EventStatus", status);
    e.put("NotBefore", notBefore == null ? "" : IMDS_TIME.format(notBefore));
    e.put("Description", type + " for planned maintenance");
    e.put("EventSource", "Platform");
    e.put("DurationInSeconds", type.equals("Freeze") ? 9 : -1);
    return e;
  }

  /** The envelope of one transition the agent on {@code vm} observed. */
  public byte[] transition(
      TransitionType type, VmIdentity vm, ObjectNode imdsEvent, boolean inferred) {
    ScheduledEvent e;
    try {
      e = DocumentParser.event(imdsEvent);
    } catch (MalformedDocumentException ex) {
      throw new IllegalArgumentException(ex);
    }
    return factory
        .scheduledEvent(new Transition(type, e, null, incarnation++, clock.instant(), inferred), vm)
        .body();
  }

  /** A heartbeat of the agent on {@code vm}. */
  public byte[] heartbeat(VmIdentity vm, Duration interval) {
    Instant now = clock.instant();
    return factory
        .heartbeat(
            new dev.sebridge.envelope.HeartbeatData(
                ++sequence,
                interval,
                now.minus(Duration.ofHours(1)),
                sequence * 10,
                sequence,
                Map.of(),
                now,
                incarnation,
                0,
                0,
                Map.of()),
            vm)
        .body();
  }

  /** The agent's result for a command. */
  public byte[] result(
      VmIdentity vm,
      String commandId,
      String requestedBy,
      ApprovalResult.Outcome outcome,
      ReasonCode reasonCode,
      List<String> eventIds,
      ApprovalResult.Kind kind) {
    ApprovalResult r =
        new ApprovalResult(
            new ApprovalResult.Command(commandId, requestedBy, "sebridge-fleet", "fleet-key"),
            outcome,
            reasonCode,
            outcome.label(),
            eventIds,
            outcome == ApprovalResult.Outcome.ACCEPTED ? 200 : null,
            kind,
            "commands/0@" + sequence++,
            null,
            commandId + "|" + kind.label());
    return factory.approvalResult(r, vm).body();
  }
}
