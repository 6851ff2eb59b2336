package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * An approval asked for through the API, as written to the audit topic before any command is sent.
 *
 * @param requestId the request's id; the command for a VM is {@code fleet:<requestId>:<vmId>}
 * @param eventId the event to approve
 * @param vmIds the VMs to approve it for
 * @param reason why (goes into every command's {@code reason})
 * @param requestedBy the approver (the token's principal; every command's {@code requestedBy})
 * @param requestedAt when
 * @param origin {@code api}, or the rollout or policy that asked for it
 * @param override an operator approves an event an active rollout holds, or one that puts a group
 *     over a rollout's limit, on purpose (audited; outside the rollout's guarantee); null or false
 *     otherwise
 * @param refusal why the fleet-wide ledger refused it (nothing is sent), or null
 * @param admitted true when the fleet-wide ledger admitted it (the rollout processor, the only
 *     writer that may, sets it); the request processor signs nothing else
 * @param acknowledge the VMs without a live agent it approves the event for through Azure's
 *     Maintenance API ({@code fleet.acknowledge.enabled}), or null: none
 * @param counted the names of the VMs the fleet-wide ledger counted for the event when it admitted
 *     the request (those the event listed; for an event the views did not show yet, those the
 *     request named): every command names them (its {@code resources} claim), and an agent refuses
 *     the event if its Resources list another; null when it could not name them all (a VM without a
 *     view or a name here, a claim too long), and in requests admitted before 2026-11-28
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApprovalRequest(
    String requestId,
    String eventId,
    List<String> vmIds,
    String reason,
    String requestedBy,
    Instant requestedAt,
    String origin,
    Boolean override,
    String refusal,
    Boolean admitted,
    Acknowledgement acknowledge,
    List<String> counted) {
  public ApprovalRequest {
    vmIds = List.copyOf(vmIds);
    counted = counted == null || counted.isEmpty() ? null : List.copyOf(counted);
  }

  /** A request before the ledger counted anything for it. */
  public ApprovalRequest(
      String requestId,
      String eventId,
      List<String> vmIds,
      String reason,
      String requestedBy,
      Instant requestedAt,
      String origin,
      Boolean override,
      String refusal,
      Boolean admitted,
      Acknowledgement acknowledge) {
    this(
        requestId,
        eventId,
        vmIds,
        reason,
        requestedBy,
        requestedAt,
        origin,
        override,
        refusal,
        admitted,
        acknowledge,
        null);
  }

  /** A request to agents only. */
  public ApprovalRequest(
      String requestId,
      String eventId,
      List<String> vmIds,
      String reason,
      String requestedBy,
      Instant requestedAt,
      String origin,
      Boolean override,
      String refusal,
      Boolean admitted) {
    this(
        requestId,
        eventId,
        vmIds,
        reason,
        requestedBy,
        requestedAt,
        origin,
        override,
        refusal,
        admitted,
        null);
  }

  /** A request without override, not refused. */
  public ApprovalRequest(
      String requestId,
      String eventId,
      List<String> vmIds,
      String reason,
      String requestedBy,
      Instant requestedAt,
      String origin) {
    this(requestId, eventId, vmIds, reason, requestedBy, requestedAt, origin, null, null, null);
  }

  /**
   * The names among {@code names} that {@code counted} does not give, compared without case (as an
   * agent compares an event's Resources with a command's resources claim).
   */
  public static List<String> notCounted(
      java.util.Collection<String> counted, java.util.Collection<String> names) {
    java.util.Set<String> given = new java.util.HashSet<>();
    counted.forEach(n -> given.add(n.toLowerCase(java.util.Locale.ROOT)));
    return names.stream()
        .filter(n -> n != null && !n.isBlank()) // no VM's name (left out of counted too)
        .filter(n -> !given.contains(n.toLowerCase(java.util.Locale.ROOT)))
        .toList();
  }

  /** Whether the operator overrode the rollouts' hold and limits. */
  public boolean overrides() {
    return Boolean.TRUE.equals(override);
  }

  /** The same request, refused by the ledger for this reason. */
  public ApprovalRequest refused(String why) {
    return new ApprovalRequest(
        requestId,
        eventId,
        vmIds,
        reason,
        requestedBy,
        requestedAt,
        origin,
        override,
        why,
        null,
        acknowledge,
        counted);
  }

  /** The same request, admitted by the ledger without naming the VMs it counted. */
  public ApprovalRequest admit() {
    return admit(null);
  }

  /**
   * The same request, admitted by the ledger, which counted these VMs of the event (by name): the
   * request processor may sign it, and its commands name them.
   */
  public ApprovalRequest admit(List<String> counted) {
    return new ApprovalRequest(
        requestId,
        eventId,
        vmIds,
        reason,
        requestedBy,
        requestedAt,
        origin,
        override,
        null,
        true,
        acknowledge,
        counted);
  }

  /** Every VM it approves for, in the request view's keys: vmIds, then those acknowledged for. */
  public List<String> vmKeys() {
    if (acknowledge == null) {
      return vmIds;
    }
    List<String> all = new java.util.ArrayList<>(vmIds);
    acknowledge.vms().forEach(n -> all.add(Acknowledgement.vmKey(n)));
    return all;
  }

  /** Whether the fleet-wide ledger admitted it. */
  public boolean wasAdmitted() {
    return Boolean.TRUE.equals(admitted);
  }

  /** The command id for one VM: deterministic, so a request handled twice sends nothing new. */
  public static String commandId(String requestId, String vmId) {
    return "fleet:" + requestId + ":" + vmId;
  }

  /** The request id a fleet command id carries, if it is one. */
  public static java.util.Optional<String> requestIdOf(String commandId) {
    if (commandId == null || !commandId.startsWith("fleet:")) {
      return java.util.Optional.empty();
    }
    int second = commandId.indexOf(':', 6);
    return second < 0
        ? java.util.Optional.empty()
        : java.util.Optional.of(commandId.substring(6, second));
  }
}
