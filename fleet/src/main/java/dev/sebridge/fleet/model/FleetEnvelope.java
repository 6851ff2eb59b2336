package dev.sebridge.fleet.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Locale;

/**
 * An agent's envelope as the fleet service applies it: only ones that validated against the v1
 * schemas get this far (any 1.x minor version: fields a later minor adds are ignored).
 *
 * @param id the envelope id
 * @param type the CloudEvents type
 * @param vmId the partition key
 * @param time the envelope's time
 * @param data its data
 */
public record FleetEnvelope(String id, String type, String vmId, Instant time, JsonNode data) {
  public static final String TRANSITION_PREFIX = "dev.sebridge.scheduledevent.";
  public static final String RESULT = "dev.sebridge.approval.result.v1";
  public static final String HEARTBEAT = "dev.sebridge.agent.heartbeat.v1";

  public boolean isTransition() {
    return type.startsWith(TRANSITION_PREFIX);
  }

  public boolean isResult() {
    return type.equals(RESULT);
  }

  public boolean isHeartbeat() {
    return type.equals(HEARTBEAT);
  }

  /** {@code scheduled}, {@code started}, {@code updated}, {@code completed}, {@code canceled}. */
  public String transition() {
    return data.path("transition").asText("").toLowerCase(Locale.ROOT);
  }

  public boolean inferred() {
    return data.path("inferred").asBoolean(false);
  }

  /**
   * Whether the event lists this VM in its Resources: the VMs of an availability set or placement
   * group see each other's events, and only the listed ones are part of an event.
   */
  public boolean affectsThisVm() {
    return data.path("affectsThisVm").asBoolean(true);
  }

  /** The IMDS event of a transition. */
  public JsonNode event() {
    return data.path("event");
  }

  /** The EventId of a transition, lower case (the events view's key). */
  public String eventKey() {
    return event().path("EventId").asText("").toLowerCase(Locale.ROOT);
  }

  public JsonNode vm() {
    return data.path("vm");
  }
}
