package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One maintenance event across the fleet, keyed by EventId (lower case): what IMDS says of it, and
 * each VM's part. One platform event lists many VMs and every one of their agents reports it; the
 * view merges them by vmId, so nothing is counted twice.
 *
 * @param eventId the EventId as IMDS writes it
 * @param eventType Freeze, Reboot, Redeploy, Preempt, Terminate, or a new type
 * @param eventSource Platform or User
 * @param notBefore NotBefore (UTC), or null once started
 * @param durationInSeconds expected impact; -1 unknown
 * @param description free text
 * @param resources the VM names IMDS lists
 * @param firstSeenAt the first envelope about it
 * @param lastSeenAt the newest envelope about it
 * @param closedAt when every VM that reported it was done with it, or null while open
 * @param vms each reporting VM's part, by vmId
 * @param central what Azure's central delivery says of it, or null (none configured, or none
 *     delivered yet)
 * @param firstSeenBy who reported it first; null in views written before central delivery (an
 *     agent)
 * @param reportedAt the time of the agent's report whose event fields (type, source, NotBefore,
 *     duration, description, Resources) the view holds: a report older than that, delivered later
 *     (an agent's outbox catching up after an outage), changes only its own VM's part, not what a
 *     newer report said of the event; null in views written before 2026-11-28 and in those no agent
 *     reported
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EventView(
    String eventId,
    String eventType,
    String eventSource,
    Instant notBefore,
    Integer durationInSeconds,
    String description,
    List<String> resources,
    Instant firstSeenAt,
    Instant lastSeenAt,
    Instant closedAt,
    Map<String, VmEventState> vms,
    CentralReport central,
    Source firstSeenBy,
    Instant reportedAt) {

  public EventView {
    resources = resources == null ? List.of() : List.copyOf(resources);
    vms = vms == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(vms));
  }

  /** An event without the time of the report its fields came from. */
  public EventView(
      String eventId,
      String eventType,
      String eventSource,
      Instant notBefore,
      Integer durationInSeconds,
      String description,
      List<String> resources,
      Instant firstSeenAt,
      Instant lastSeenAt,
      Instant closedAt,
      Map<String, VmEventState> vms,
      CentralReport central,
      Source firstSeenBy) {
    this(
        eventId,
        eventType,
        eventSource,
        notBefore,
        durationInSeconds,
        description,
        resources,
        firstSeenAt,
        lastSeenAt,
        closedAt,
        vms,
        central,
        firstSeenBy,
        null);
  }

  /** An event only agents reported (so far). */
  public EventView(
      String eventId,
      String eventType,
      String eventSource,
      Instant notBefore,
      Integer durationInSeconds,
      String description,
      List<String> resources,
      Instant firstSeenAt,
      Instant lastSeenAt,
      Instant closedAt,
      Map<String, VmEventState> vms) {
    this(
        eventId,
        eventType,
        eventSource,
        notBefore,
        durationInSeconds,
        description,
        resources,
        firstSeenAt,
        lastSeenAt,
        closedAt,
        vms,
        null,
        null);
  }

  /** The same event, closed at {@code at}. */
  public EventView closedAt(Instant at) {
    return new EventView(
        eventId,
        eventType,
        eventSource,
        notBefore,
        durationInSeconds,
        description,
        resources,
        firstSeenAt,
        lastSeenAt,
        at,
        vms,
        central,
        firstSeenBy,
        reportedAt);
  }

  /** The same event with Azure's report and who saw it first as given. */
  public EventView withCentral(CentralReport central, Source firstSeenBy) {
    return new EventView(
        eventId,
        eventType,
        eventSource,
        notBefore,
        durationInSeconds,
        description,
        resources,
        firstSeenAt,
        lastSeenAt,
        closedAt,
        vms,
        central,
        firstSeenBy,
        reportedAt);
  }

  public boolean open() {
    return closedAt == null;
  }

  /**
   * Every name the event lists: those the agents' reports list, and those Azure's central delivery
   * lists (a report can narrow the view's list, an unknown vmId's until a known VM reports; Azure's
   * cannot be), once each without case.
   */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public List<String> listedNames() {
    if (central == null || central.resources().isEmpty()) {
      return resources;
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    List<String> out = new java.util.ArrayList<>(resources.size() + central.resources().size());
    for (List<String> names : List.of(resources, central.resources())) {
      for (String n : names) {
        if (n != null && seen.add(n.toLowerCase(java.util.Locale.ROOT))) {
          out.add(n);
        }
      }
    }
    return out;
  }

  /** VMs by status. */
  public Map<String, Integer> counts() {
    Map<String, Integer> c = new TreeMap<>();
    vms.values().forEach(v -> c.merge(v.status(), 1, Integer::sum));
    return c;
  }
}
