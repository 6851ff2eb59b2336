package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One VM as the fleet sees it: what its agent reported, keyed by vmId.
 *
 * @param vmId the VM's id (the envelopes' partition key)
 * @param name the VM's name (matched against an event's Resources)
 * @param resourceId ARM resource id
 * @param subscriptionId subscription
 * @param resourceGroup resource group
 * @param location region
 * @param zone availability zone, or null
 * @param scaleSet scale set name, or null
 * @param agentVersion the agent's version
 * @param lastEnvelopeAt the newest envelope's {@code time}
 * @param lastSeenAt when the fleet service last received an envelope of this VM (wall clock)
 * @param lastHeartbeatAt the newest heartbeat's {@code time}, or null
 * @param heartbeatIntervalSeconds the agent's heartbeat interval (from its heartbeats)
 * @param polls poll counters of the newest heartbeat ({@code total}, {@code documents}, failures)
 * @param silent true when nothing came for 3 heartbeat intervals
 * @param openEvents EventIds this VM reports as Scheduled or Started
 * @param inventory whether Azure's inventory has this vmId (null: no inventory configured); when it
 *     has, the group attributes above are the inventory's, not the agent's
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record VmView(
    String vmId,
    String name,
    String resourceId,
    String subscriptionId,
    String resourceGroup,
    String location,
    String zone,
    String scaleSet,
    String agentVersion,
    Instant lastEnvelopeAt,
    Instant lastSeenAt,
    Instant lastHeartbeatAt,
    Integer heartbeatIntervalSeconds,
    Map<String, Long> polls,
    boolean silent,
    Set<String> openEvents,
    InventoryState inventory) {

  public VmView {
    polls = polls == null ? Map.of() : Map.copyOf(polls);
    openEvents =
        openEvents == null
            ? Set.of()
            : Collections.unmodifiableSortedSet(new TreeSet<>(openEvents));
  }

  /** A view without an inventory's say (none configured). */
  public VmView(
      String vmId,
      String name,
      String resourceId,
      String subscriptionId,
      String resourceGroup,
      String location,
      String zone,
      String scaleSet,
      String agentVersion,
      Instant lastEnvelopeAt,
      Instant lastSeenAt,
      Instant lastHeartbeatAt,
      Integer heartbeatIntervalSeconds,
      Map<String, Long> polls,
      boolean silent,
      Set<String> openEvents) {
    this(
        vmId,
        name,
        resourceId,
        subscriptionId,
        resourceGroup,
        location,
        zone,
        scaleSet,
        agentVersion,
        lastEnvelopeAt,
        lastSeenAt,
        lastHeartbeatAt,
        heartbeatIntervalSeconds,
        polls,
        silent,
        openEvents,
        null);
  }

  public static VmView unknown(String vmId) {
    return new VmView(
        vmId, null, null, null, null, null, null, null, null, null, null, null, null, null, false,
        null);
  }
}
