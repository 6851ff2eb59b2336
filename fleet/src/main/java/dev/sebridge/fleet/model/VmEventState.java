package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * One VM's part in one event.
 *
 * @param vmId the VM
 * @param name its name
 * @param zone its zone, or null
 * @param scaleSet its scale set, or null
 * @param status {@code scheduled}, {@code approved} (an approval was accepted, the event has not
 *     started), {@code started}, {@code completed}, {@code canceled}, or {@code inferred} (gone
 *     while the agent was not watching: {@code guess} says what it probably was)
 * @param guess for {@code inferred}: completed or canceled, or {@code vanished} when the fleet
 *     closed it because nothing was heard from the VM for {@code fleet.vm-retention} (it is gone)
 * @param since when the VM reached this status (the envelope's time)
 * @param approval the last approval result of this VM for this event, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record VmEventState(
    String vmId,
    String name,
    String zone,
    String scaleSet,
    String status,
    String guess,
    Instant since,
    ApprovalInfo approval) {

  /** Whether the VM is done with the event. */
  public boolean closed() {
    return status.equals("completed") || status.equals("canceled") || status.equals("inferred");
  }

  /** Closed because the VM is gone (nothing heard from it for {@code fleet.vm-retention}). */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean vanished() {
    return "inferred".equals(status) && "vanished".equals(guess);
  }

  /**
   * An approval result, as the agent published it.
   *
   * @param outcome accepted, rejected, failed or dry-run
   * @param reasonCode its reason code
   * @param requestedBy who asked
   * @param commandId the command
   * @param at when
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ApprovalInfo(
      String outcome, String reasonCode, String requestedBy, String commandId, Instant at) {}
}
