package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * An approval request and what became of it, VM by VM.
 *
 * @param request the request as audited
 * @param commandsSentAt when its commands were produced
 * @param vms per vmId: the command sent and the agent's result
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RequestView(
    ApprovalRequest request, Instant commandsSentAt, Map<String, VmResult> vms) {
  public RequestView {
    vms = vms == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(vms));
  }

  /** True once every VM has a result. */
  public boolean complete() {
    return vms.values().stream().allMatch(v -> v.outcome() != null);
  }

  /**
   * One VM of a request.
   *
   * @param commandId the command sent to it
   * @param outcome the agent's result (accepted, rejected, failed, dry-run), null while waiting
   * @param reasonCode the result's reason code
   * @param reason the result's reason
   * @param resultAt when the result was published
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record VmResult(
      String commandId, String outcome, String reasonCode, String reason, Instant resultAt) {}
}
