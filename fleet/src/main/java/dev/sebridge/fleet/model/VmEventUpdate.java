package dev.sebridge.fleet.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * What one VM's envelope says about one event, on its way from the VM's partition to the event's
 * (the events view is keyed by EventId).
 *
 * @param eventKey the EventId, lower case
 * @param vmId the reporting VM
 * @param name its name
 * @param zone its zone
 * @param scaleSet its scale set
 * @param time the envelope's time
 * @param transition the transition, or {@code approval} for an approval result
 * @param inferred a removal the agent could not observe live
 * @param event the IMDS event (transitions), else null
 * @param approval the result (approval results), else null
 * @param central Azure's central delivery of the event (then {@code vmId} is null and {@code
 *     transition} is {@code central}), else null
 * @param ifPart a report from an agent whose event does not list its name, while Azure's inventory
 *     gives its vmId no name (a refresh missed it): it moves that VM's part of the event if the VM
 *     has one, keeping the part's name and place, and creates none. An agent that took its host's
 *     name counts an event as its own while the inventory gives its vmId a name the event lists;
 *     dropped, the end such a report brings kept the event open and its VM counted down by the
 *     ledger for its 30 days
 */
public record VmEventUpdate(
    String eventKey,
    String vmId,
    String name,
    String zone,
    String scaleSet,
    Instant time,
    String transition,
    boolean inferred,
    JsonNode event,
    VmEventState.ApprovalInfo approval,
    dev.sebridge.fleet.agentless.AzureScheduledEvent central,
    boolean ifPart) {
  /** The transition of an update from Azure's central delivery. */
  public static final String CENTRAL = "central";

  /** The transition of Azure's report read from Resource Graph (the reconciliation read). */
  public static final String RECONCILED = "reconciled";

  /** An agent's report. */
  public VmEventUpdate(
      String eventKey,
      String vmId,
      String name,
      String zone,
      String scaleSet,
      Instant time,
      String transition,
      boolean inferred,
      JsonNode event,
      VmEventState.ApprovalInfo approval) {
    this(
        eventKey,
        vmId,
        name,
        zone,
        scaleSet,
        time,
        transition,
        inferred,
        event,
        approval,
        null,
        false);
  }

  /** The same report, of a VM named and placed as given. */
  public VmEventUpdate placedAs(String name, String zone, String scaleSet) {
    return new VmEventUpdate(
        eventKey,
        vmId,
        name,
        zone,
        scaleSet,
        time,
        transition,
        inferred,
        event,
        approval,
        central,
        ifPart);
  }

  /** The same report, for the VM's part only if it has one ({@link #ifPart}). */
  public VmEventUpdate onlyIfPart() {
    return new VmEventUpdate(
        eventKey,
        vmId,
        name,
        zone,
        scaleSet,
        time,
        transition,
        inferred,
        event,
        approval,
        central,
        true);
  }

  /** Azure's central delivery of an event, at {@code time}. */
  public static VmEventUpdate central(
      dev.sebridge.fleet.agentless.AzureScheduledEvent event, Instant time) {
    return azure(event, time, CENTRAL);
  }

  /** Azure's report of an event read from Resource Graph at {@code time}. */
  public static VmEventUpdate reconciled(
      dev.sebridge.fleet.agentless.AzureScheduledEvent event, Instant time) {
    return azure(event, time, RECONCILED);
  }

  private static VmEventUpdate azure(
      dev.sebridge.fleet.agentless.AzureScheduledEvent event, Instant time, String transition) {
    return new VmEventUpdate(
        event.key(), null, null, null, null, time, transition, false, null, null, event, false);
  }

  /** Whether Azure's report was read from Resource Graph (not a delivery). */
  public boolean isReconciled() {
    return RECONCILED.equals(transition);
  }
}
