package dev.sebridge.simulator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a scheduled event looks like when it is created in the simulator. Times are in simulated
 * seconds; the simulator divides them by its time scale.
 *
 * @param eventId the EventId; a random GUID when null
 * @param eventType Freeze, Reboot, Redeploy, Preempt, Terminate, or anything else
 * @param eventSource Platform or User
 * @param resources the VM names the event affects
 * @param description free text
 * @param noticeSeconds simulated seconds from creation to NotBefore (ignored when started)
 * @param durationInSeconds the DurationInSeconds field (expected impact; -1 unknown)
 * @param startedSeconds simulated seconds an event stays Started before it disappears
 * @param started true for a hardware failure: the event appears directly as Started
 * @param extraFields fields added verbatim to the event, to test pass-through of unknown fields
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record EventSpec(
    String eventId,
    String eventType,
    String eventSource,
    List<String> resources,
    String description,
    Double noticeSeconds,
    Integer durationInSeconds,
    Double startedSeconds,
    Boolean started,
    Map<String, Object> extraFields) {

  public EventSpec {
    eventId = eventId == null ? UUID.randomUUID().toString().toUpperCase() : eventId;
    eventType = eventType == null ? "Freeze" : eventType;
    eventSource = eventSource == null ? "Platform" : eventSource;
    resources = resources == null ? List.of() : List.copyOf(resources);
    description = description == null ? "" : description;
    noticeSeconds = noticeSeconds == null ? 900.0 : noticeSeconds;
    durationInSeconds = durationInSeconds == null ? -1 : durationInSeconds;
    startedSeconds = startedSeconds == null ? 600.0 : startedSeconds;
    started = started != null && started;
    extraFields = extraFields == null ? Map.of() : Map.copyOf(extraFields);
  }

  /**
   * A Scheduled event of the given type, for the given VMs, with the defaults for everything else.
   */
  public static EventSpec scheduled(String eventType, List<String> resources) {
    return new EventSpec(null, eventType, null, resources, null, null, null, null, false, null);
  }

  public EventSpec withId(String id) {
    return new EventSpec(
        id,
        eventType,
        eventSource,
        resources,
        description,
        noticeSeconds,
        durationInSeconds,
        startedSeconds,
        started,
        extraFields);
  }

  public EventSpec withNotice(double seconds) {
    return new EventSpec(
        eventId,
        eventType,
        eventSource,
        resources,
        description,
        seconds,
        durationInSeconds,
        startedSeconds,
        started,
        extraFields);
  }

  public EventSpec withStartedFor(double seconds) {
    return new EventSpec(
        eventId,
        eventType,
        eventSource,
        resources,
        description,
        noticeSeconds,
        durationInSeconds,
        seconds,
        started,
        extraFields);
  }

  public EventSpec withSource(String source) {
    return new EventSpec(
        eventId,
        eventType,
        source,
        resources,
        description,
        noticeSeconds,
        durationInSeconds,
        startedSeconds,
        started,
        extraFields);
  }

  public EventSpec withDescription(String text) {
    return new EventSpec(
        eventId,
        eventType,
        eventSource,
        resources,
        text,
        noticeSeconds,
        durationInSeconds,
        startedSeconds,
        started,
        extraFields);
  }

  public EventSpec withDuration(int seconds) {
    return new EventSpec(
        eventId,
        eventType,
        eventSource,
        resources,
        description,
        noticeSeconds,
        seconds,
        startedSeconds,
        started,
        extraFields);
  }

  /** The same event appearing directly as Started (a hardware failure). */
  public EventSpec asHardwareFailure() {
    return new EventSpec(
        eventId,
        eventType,
        eventSource,
        resources,
        description,
        noticeSeconds,
        durationInSeconds,
        startedSeconds,
        true,
        extraFields);
  }

  public EventSpec withExtraFields(Map<String, Object> fields) {
    return new EventSpec(
        eventId,
        eventType,
        eventSource,
        resources,
        description,
        noticeSeconds,
        durationInSeconds,
        startedSeconds,
        started,
        fields);
  }
}
