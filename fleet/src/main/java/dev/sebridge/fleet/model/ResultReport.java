package dev.sebridge.fleet.model;

import java.time.Instant;

/**
 * An agent's result for a command the fleet service sent, on its way to the request's partition.
 *
 * @param vmId the VM
 * @param commandId the command
 * @param resultKind outcome, replay or summary (only outcome changes a request)
 * @param outcome accepted, rejected, failed or dry-run
 * @param reasonCode the reason code
 * @param reason the reason
 * @param at the result's time
 */
public record ResultReport(
    String vmId,
    String commandId,
    String resultKind,
    String outcome,
    String reasonCode,
    String reason,
    Instant at) {

  public static ResultReport of(FleetEnvelope e, String commandId) {
    var d = e.data();
    return new ResultReport(
        e.vmId(),
        commandId,
        d.path("resultKind").asText("outcome"),
        d.path("outcome").asText(null),
        d.path("reasonCode").asText(null),
        d.path("reason").asText(null),
        e.time());
  }
}
