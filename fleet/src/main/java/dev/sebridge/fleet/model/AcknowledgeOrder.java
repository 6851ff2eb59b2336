package dev.sebridge.fleet.model;

import java.time.Instant;
import java.util.List;

/**
 * What the request processor asks Azure's Maintenance API to do for an audited, admitted request
 * ({@code <prefix>-acknowledgements}, keyed by request id): acknowledge one scheduled event. The
 * acknowledger acts on it at most until {@code expiresAt}, as an agent acts on a command within its
 * lifetime, and reports each VM's outcome as an agent reports its result.
 *
 * @param requestId the request
 * @param eventId the EventId
 * @param resourceId the scheduled event's ARM id
 * @param vms the VM names it is acknowledged for (each gets an outcome, under {@link
 *     Acknowledgement#vmKey})
 * @param requestedBy the approver
 * @param issuedAt when the request processor wrote it
 * @param expiresAt after this it is not acted on ({@code failed}, {@code expired})
 */
public record AcknowledgeOrder(
    String requestId,
    String eventId,
    String resourceId,
    List<String> vms,
    String requestedBy,
    Instant issuedAt,
    Instant expiresAt) {
  public AcknowledgeOrder {
    vms = vms == null ? List.of() : List.copyOf(vms);
  }
}
