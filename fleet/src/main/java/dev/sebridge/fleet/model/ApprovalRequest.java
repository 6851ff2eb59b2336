package dev.sebridge.fleet.model;

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
 */
public record ApprovalRequest(
    String requestId,
    String eventId,
    List<String> vmIds,
    String reason,
    String requestedBy,
    Instant requestedAt,
    String origin) {
  public ApprovalRequest {
    vmIds = List.copyOf(vmIds);
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
