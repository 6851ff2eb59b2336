package dev.sebridge.fleet.api;

import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.rollout.RolloutCommand;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.Producer;

/**
 * Accepts an approval: checks it against the events view (the event is open; each VM reported it
 * and still has it Scheduled) and the rollouts view (no active rollout holds the event, unless the
 * operator overrides), then writes it to the rollouts topic and returns. There the rollout
 * processor decides it against the fleet-wide ledger, serialised with every rollout's steps, and
 * writes it to the audit topic accepted or refused; the topology signs and sends the commands of an
 * accepted one from there. Nothing is sent that was not audited first.
 */
public final class ApprovalRequests {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ApprovalRequests.class);
  static final int MAX_REASON = Audited.MAX_REASON;

  private final Producer<String, RolloutCommand> commands;
  private final String rolloutsTopic;
  private final FleetViews views;
  private final Clock clock;
  private final RecentWrites<ApprovalRequest> recent;
  private final boolean acknowledging;

  /** Without acknowledgements through Azure's Maintenance API. */
  public ApprovalRequests(
      Producer<String, RolloutCommand> commands,
      String rolloutsTopic,
      FleetViews views,
      Clock clock) {
    this(commands, rolloutsTopic, views, clock, false);
  }

  /**
   * @param acknowledging whether an event's VMs without a live agent are approved through Azure's
   *     Maintenance API ({@code fleet.acknowledge.enabled})
   */
  public ApprovalRequests(
      Producer<String, RolloutCommand> commands,
      String rolloutsTopic,
      FleetViews views,
      Clock clock,
      boolean acknowledging) {
    this.commands = commands;
    this.rolloutsTopic = rolloutsTopic;
    this.views = views;
    this.clock = clock;
    this.recent = new RecentWrites<>(clock);
    this.acknowledging = acknowledging;
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
   * @param override approve an event an active rollout holds, or beyond a rollout's limit, on
   *     purpose (audited in the request; outside the rollouts' guarantee)
   */
  public Accepted request(
      String eventId,
      List<String> vmIds,
      String reason,
      Principal approver,
      String idempotencyKey,
      String origin,
      boolean override) {
    Audited.approverWithReason(approver, reason);
    if (idempotencyKey != null && idempotencyKey.length() > 128) {
      throw new ApiException(400, "an Idempotency-Key has at most 128 characters");
    }
    String keyed =
        idempotencyKey == null || idempotencyKey.isBlank()
            ? null
            : NameBasedUuid.v5(
                    NameBasedUuid.SEBRIDGE_NAMESPACE,
                    "fleet-request|" + approver.id() + "|" + idempotencyKey)
                .toString();
    if (keyed != null) {
      // The key first: a retry of a request already made answers with it, whatever happened to
      // the event since, and the same key for another request is refused.
      java.util.Optional<ApprovalRequest> earlier =
          recent
              .get(keyed)
              .map(RecentWrites.Write::await)
              .or(() -> views.request(keyed).map(v -> v.request()));
      if (earlier.isPresent()) {
        return again(earlier.get(), eventId, vmIds, reason, override, idempotencyKey);
      }
    }
    EventView event =
        views.event(eventId).orElseThrow(() -> new ApiException(404, "no event " + eventId));
    if (!event.open()) {
      throw new ApiException(409, "event " + eventId + " is over");
    }
    Audited.notForbiddenByPolicy(views, eventId);
    if (!override) {
      // What the rollouts view shows now; the rollout processor decides again, authoritatively.
      views.rollouts().active().stream()
          .filter(r -> r.holds(event.eventId()))
          .findFirst()
          .ifPresent(
              r -> {
                throw new ApiException(
                    409,
                    "event "
                        + event.eventId()
                        + " is held by rollout "
                        + r.id()
                        + ", which releases it within its limits; approve with \"override\":"
                        + " true to start it anyway");
              });
    }
    List<String> targets = new ArrayList<>();
    Acknowledgement acknowledge = null;
    if (vmIds == null || vmIds.isEmpty()) {
      event.vms().values().stream()
          .filter(v -> v.status().equals("scheduled"))
          .forEach(v -> targets.add(v.vmId()));
      // The VMs Azure lists that no live agent can approve it for: through the Maintenance API
      // (a VM whose agent is silent among them: acknowledged for, not sent a command too).
      Acknowledgement a = Acknowledgement.of(event, this::liveAgent);
      if (a != null && acknowledging) {
        java.util.Set<String> acknowledged = new java.util.HashSet<>();
        a.vms().forEach(n -> acknowledged.add(n.toLowerCase(java.util.Locale.ROOT)));
        targets.removeIf(
            vmId -> {
              VmEventState s = event.vms().get(vmId);
              return s != null
                  && s.name() != null
                  && acknowledged.contains(s.name().toLowerCase(java.util.Locale.ROOT));
            });
      }
      if (a != null && !acknowledging) {
        if (targets.isEmpty()) {
          throw new ApiException(
              409,
              "no agent has event "
                  + eventId
                  + " Scheduled; Azure lists it for "
                  + String.join(", ", a.vms())
                  + ", VMs without a live agent: approving them needs fleet.acknowledge.enabled"
                  + " (through Azure's Maintenance API)");
        }
      } else {
        acknowledge = a;
      }
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
    if (targets.isEmpty() && acknowledge == null) {
      throw new ApiException(409, "no VM has event " + eventId + " Scheduled");
    }
    String requestId = keyed == null ? UUID.randomUUID().toString() : keyed;
    ApprovalRequest r =
        new ApprovalRequest(
            requestId,
            event.eventId(),
            targets,
            reason,
            approver.name(),
            clock.instant(),
            origin,
            override ? Boolean.TRUE : null,
            null,
            null,
            acknowledge);
    if (keyed != null) {
      // The same key at once (a retry before the views show the first): one of them is written.
      java.util.Optional<RecentWrites.Write<ApprovalRequest>> first = recent.putIfAbsent(keyed, r);
      if (first.isPresent()) {
        return again(first.get().await(), eventId, vmIds, reason, override, idempotencyKey);
      }
    }
    try {
      Audited.write(commands, rolloutsTopic, requestId, RolloutCommand.approve(r), "requestId");
    } catch (RuntimeException e) {
      // Not known to be written: a retry with the key writes it again (the same id, so the
      // rollout processor decides it once whichever copy arrives).
      if (keyed != null) {
        recent.failed(keyed, e);
      }
      throw e;
    }
    if (keyed != null) {
      recent.written(keyed);
    }
    LOG.info(
        "approval request {} by {}: event {} for {} VM(s){}, to the fleet-wide ledger",
        requestId,
        approver.name(),
        event.eventId(),
        targets.size(),
        acknowledge == null
            ? ""
            : " and, through Azure's Maintenance API, "
                + acknowledge.vms().size()
                + " without an agent");
    return new Accepted(r, event.resources());
  }

  /** Whether the VM's agent is live: the fleet has its view and it is not silent. */
  private boolean liveAgent(String vmId) {
    return vmId != null && views.vm(vmId).map(v -> !v.silent()).orElse(false);
  }

  /** A request made earlier under the same key: it again for the same body, else 422. */
  private Accepted again(
      ApprovalRequest e,
      String eventId,
      List<String> vmIds,
      String reason,
      boolean override,
      String idempotencyKey) {
    boolean same =
        e.eventId().equalsIgnoreCase(eventId)
            && e.reason().equals(reason)
            && e.overrides() == override
            && (vmIds == null
                || new java.util.HashSet<>(vmIds).equals(new java.util.HashSet<>(e.vmIds())));
    if (!same) {
      throw new ApiException(
          422,
          "Idempotency-Key "
              + idempotencyKey
              + " was used for request "
              + e.requestId()
              + " (event "
              + e.eventId()
              + ", VMs "
              + String.join(", ", e.vmIds())
              + ") with another body: use a new key for a new request");
    }
    return new Accepted(e, views.event(e.eventId()).map(EventView::resources).orElse(List.of()));
  }
}
