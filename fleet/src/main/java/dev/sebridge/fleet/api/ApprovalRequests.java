package dev.sebridge.fleet.api;

import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.Producer;

/**
 * Accepts an approval: checks it against the events view (the event is open; each VM reported it
 * and still has it Scheduled), then writes it to the audit topic and returns. The topology signs
 * and sends the commands from there; nothing is sent that was not audited first.
 */
public final class ApprovalRequests {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ApprovalRequests.class);
  static final int MAX_REASON = Audited.MAX_REASON;

  private final Producer<String, ApprovalRequest> audit;
  private final String auditTopic;
  private final FleetViews views;
  private final Clock clock;

  public ApprovalRequests(
      Producer<String, ApprovalRequest> audit, String auditTopic, FleetViews views, Clock clock) {
    this.audit = audit;
    this.auditTopic = auditTopic;
    this.views = views;
    this.clock = clock;
  }

  /**
   * An accepted request.
   *
   * @param request as audited
   * @param releases every VM the event lists: IMDS releases an approved event for all of them
   */
  public record Accepted(ApprovalRequest request, List<String> releases) {}

  /**
   * @param vmIds the VMs to approve for, or null for every VM that has the event Scheduled
   * @param idempotencyKey makes a retried request the same request (same id, same commands)
   */
  public Accepted request(
      String eventId,
      List<String> vmIds,
      String reason,
      Principal approver,
      String idempotencyKey,
      String origin) {
    Audited.approverWithReason(approver, reason);
    if (idempotencyKey != null && idempotencyKey.length() > 128) {
      throw new ApiException(400, "an Idempotency-Key has at most 128 characters");
    }
    EventView event =
        views.event(eventId).orElseThrow(() -> new ApiException(404, "no event " + eventId));
    if (!event.open()) {
      throw new ApiException(409, "event " + eventId + " is over");
    }
    Audited.notForbiddenByPolicy(views, eventId);
    List<String> targets = new ArrayList<>();
    if (vmIds == null || vmIds.isEmpty()) {
      event.vms().values().stream()
          .filter(v -> v.status().equals("scheduled"))
          .forEach(v -> targets.add(v.vmId()));
    } else {
      List<String> refused = new ArrayList<>();
      for (String vm : new LinkedHashSet<>(vmIds)) {
        VmEventState s = event.vms().get(vm);
        if (s == null || !s.status().equals("scheduled")) {
          refused.add(vm + (s == null ? " (does not report it)" : " (" + s.status() + ")"));
        } else {
          targets.add(vm);
        }
      }
      if (!refused.isEmpty()) {
        throw new ApiException(409, "not Scheduled on: " + String.join(", ", refused));
      }
    }
    if (targets.isEmpty()) {
      throw new ApiException(409, "no VM has event " + eventId + " Scheduled");
    }
    String requestId =
        idempotencyKey == null || idempotencyKey.isBlank()
            ? UUID.randomUUID().toString()
            : NameBasedUuid.v5(
                    NameBasedUuid.SEBRIDGE_NAMESPACE,
                    "fleet-request|" + approver.name() + "|" + idempotencyKey)
                .toString();
    ApprovalRequest r =
        new ApprovalRequest(
            requestId, event.eventId(), targets, reason, approver.name(), clock.instant(), origin);
    Audited.write(audit, auditTopic, requestId, r);
    LOG.info(
        "approval request {} by {}: event {} for {} VM(s), audited",
        requestId,
        approver.name(),
        event.eventId(),
        targets.size());
    return new Accepted(r, event.resources());
  }
}
