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
    Source firstSeenBy) {

  public EventView {
    resources = resources == null ? List.of() : List.copyOf(resources);
    vms = vms == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(vms));
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
        firstSeenBy);
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
        firstSeenBy);
  }

  public boolean open() {
    return closedAt == null;
  }

  /** VMs by status. */
  public Map<String, Integer> counts() {
    Map<String, Integer> c = new TreeMap<>();
    vms.values().forEach(v -> c.merge(v.status(), 1, Integer::sum));
    return c;
  }
}
