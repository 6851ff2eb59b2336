package dev.sebridge.simulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated IMDS's events and their lifecycles: Scheduled, then Started on approval (after the
 * approval start delay) or at NotBefore, then gone after the event's duration; DocumentIncarnation
 * incremented on every change; the faults queued for the next GETs. Every method holds the book's
 * lock, so the HTTP threads, the clock thread and a script see one state.
 */
final class EventBook {
  // The simulator's name in the log: "sim: Scheduled Freeze ..." lines are read as its own.
  private static final Logger LOG = LoggerFactory.getLogger(ImdsSimulator.class);
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC).withLocale(Locale.US);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Clock clock;
  private final double timeScale;
  private final Duration approvalStartDelay;

  // Guarded by "this".
  private final Map<String, SimEvent> events = new LinkedHashMap<>();
  private final Deque<Fault> faults = new ArrayDeque<>();
  // When each event left the document (finished or canceled): the record a test judges an
  // approval's effect by. The newest ENDED_KEPT are kept.
  private static final int ENDED_KEPT = 10_000;
  private final Map<String, Instant> ended =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
          return size() > ENDED_KEPT;
        }
      };
  private long incarnation = 1;
  private boolean firstCallServed;
  private Instant lastPoll;

  EventBook(Clock clock, double timeScale, Duration approvalStartDelay) {
    this.clock = clock;
    this.timeScale = timeScale;
    this.approvalStartDelay = approvalStartDelay;
  }

  /** Creates an event (Scheduled, or Started for a hardware failure); returns its EventId. */
  synchronized String add(EventSpec spec) {
    Instant now = clock.instant();
    if (events.containsKey(key(spec.eventId()))) {
      throw new IllegalArgumentException("event " + spec.eventId() + " exists already");
    }
    SimEvent e = new SimEvent(spec);
    if (spec.started()) {
      e.status = "Started";
      e.startedAt = now;
    } else {
      e.status = "Scheduled";
      e.notBefore = now.plus(real(spec.noticeSeconds()));
    }
    events.put(key(spec.eventId()), e);
    incarnation++;
    LOG.info("sim: {} {} {} for {}", e.status, spec.eventType(), spec.eventId(), spec.resources());
    return spec.eventId();
  }

  /** Starts a Scheduled event now, as Azure does at NotBefore. */
  synchronized void start(String eventId) {
    SimEvent e = require(eventId);
    if (!"Started".equals(e.status)) {
      e.status = "Started";
      e.startedAt = clock.instant();
      e.notBefore = null;
      incarnation++;
    }
  }

  /** Removes an event (finished), whatever its state. */
  synchronized void complete(String eventId) {
    require(eventId);
    events.remove(key(eventId));
    ended.put(key(eventId), clock.instant());
    incarnation++;
  }

  /** When the event left the document (finished or canceled), if it has. */
  synchronized Optional<Instant> endedAt(String eventId) {
    return Optional.ofNullable(ended.get(key(eventId)));
  }

  /** Azure cancels a Scheduled event: it disappears with no impact. */
  synchronized void cancel(String eventId) {
    SimEvent e = require(eventId);
    if (!"Scheduled".equals(e.status)) {
      throw new IllegalStateException("only a Scheduled event can be canceled: " + eventId);
    }
    events.remove(key(eventId));
    ended.put(key(eventId), clock.instant());
    incarnation++;
  }

  /**
   * Azure changes the VMs an event lists (it adds one to an event already scheduled, say): IMDS
   * releases an approved event for every VM listed at the approval.
   */
  synchronized void resources(String eventId, java.util.List<String> resources) {
    if (resources == null || resources.isEmpty()) {
      throw new IllegalArgumentException("an event lists at least one VM");
    }
    SimEvent e = require(eventId);
    e.resources = java.util.List.copyOf(resources);
    incarnation++;
  }

  /** Moves NotBefore of a Scheduled event (Azure reschedules). */
  synchronized void reschedule(String eventId, double noticeSeconds) {
    SimEvent e = require(eventId);
    e.notBefore = clock.instant().plus(real(noticeSeconds));
    incarnation++;
  }

  /** Queues faults for the next scheduled-events GETs, each answering one request. */
  synchronized void injectFault(Fault fault, int times) {
    for (int i = 0; i < times; i++) {
      faults.add(fault);
    }
  }

  /** Drops every queued fault: IMDS answers normally again. */
  synchronized void clearFaults() {
    faults.clear();
  }

  synchronized int pendingFaults() {
    return faults.size();
  }

  synchronized long incarnation() {
    return incarnation;
  }

  /** The status of an event ("Scheduled", "Started"), or empty once it is gone. */
  synchronized Optional<String> status(String eventId) {
    return Optional.ofNullable(events.get(key(eventId))).map(e -> e.status);
  }

  synchronized List<String> eventIds() {
    return events.values().stream().map(e -> e.spec.eventId()).toList();
  }

  synchronized boolean isIdle() {
    return events.isEmpty();
  }

  /** The document a VM would get now, as JSON. */
  synchronized ObjectNode document(String apiVersion) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("DocumentIncarnation", incarnation);
    ArrayNode arr = doc.putArray("Events");
    for (SimEvent e : events.values()) {
      if (!visibleIn(e.spec.eventType(), apiVersion)) {
        continue;
      }
      arr.add(e.toJson(apiVersion));
    }
    return doc;
  }

  /**
   * A GET of the document arrives: records when, and takes the next queued fault (null: none).
   * {@code first} is true for the very first GET the simulator answers.
   */
  synchronized Poll poll() {
    lastPoll = clock.instant();
    boolean first = !firstCallServed;
    firstCallServed = true;
    return new Poll(faults.poll(), first);
  }

  record Poll(Fault fault, boolean first) {}

  synchronized Optional<Instant> lastPoll() {
    return Optional.ofNullable(lastPoll);
  }

  /** StartRequests for these EventIds arrived: each Scheduled one not approved yet is, now. */
  synchronized void approve(List<String> eventIds) {
    Instant now = clock.instant();
    for (String id : eventIds) {
      SimEvent e = events.get(key(id));
      if (e != null && "Scheduled".equals(e.status) && e.approvedAt == null) {
        e.approvedAt = now;
      }
    }
  }

  private Duration real(double simSeconds) {
    return Duration.ofNanos(Math.max(0, Math.round(simSeconds * 1e9 / timeScale)));
  }

  /** Runs lifecycles up to now (the simulator's clock thread, and after an approval). */
  synchronized void advance() {
    Instant now = clock.instant();
    boolean changed = false;
    var it = events.values().iterator();
    while (it.hasNext()) {
      SimEvent e = it.next();
      if ("Scheduled".equals(e.status)) {
        boolean approvedAndDue =
            e.approvedAt != null && !now.isBefore(e.approvedAt.plus(approvalStartDelay));
        if (approvedAndDue || (e.notBefore != null && !now.isBefore(e.notBefore))) {
          e.status = "Started";
          e.startedAt = now;
          e.notBefore = null;
          changed = true;
        }
      } else if ("Started".equals(e.status)
          && !now.isBefore(e.startedAt.plus(real(e.spec.startedSeconds())))) {
        it.remove();
        ended.put(key(e.spec.eventId()), now);
        changed = true;
      }
    }
    if (changed) {
      incarnation++;
    }
  }

  private SimEvent require(String eventId) {
    SimEvent e = events.get(key(eventId));
    if (e == null) {
      throw new IllegalArgumentException("no event " + eventId);
    }
    return e;
  }

  private static String key(String eventId) {
    return eventId.toLowerCase(Locale.ROOT);
  }

  static boolean visibleIn(String eventType, String apiVersion) {
    return switch (eventType) {
      case "Preempt" -> apiVersion.compareTo("2017-11-01") >= 0;
      case "Terminate" -> apiVersion.compareTo("2019-01-01") >= 0;
      default -> true;
    };
  }

  private static final class SimEvent {
    final EventSpec spec;
    String status;
    Instant notBefore;
    Instant startedAt;
    Instant approvedAt;
    java.util.List<String> resources;

    SimEvent(EventSpec spec) {
      this.spec = spec;
      this.resources = java.util.List.copyOf(spec.resources());
    }

    ObjectNode toJson(String apiVersion) {
      ObjectNode n = JSON.createObjectNode();
      n.put("EventId", spec.eventId());
      n.put("EventType", spec.eventType());
      n.put("ResourceType", "VirtualMachine");
      ArrayNode res = n.putArray("Resources");
      resources.forEach(res::add);
      n.put("EventStatus", status);
      n.put("NotBefore", notBefore == null ? "" : HTTP_DATE.format(notBefore));
      if (apiVersion.compareTo("2019-04-01") >= 0) {
        n.put("Description", spec.description());
      }
      if (apiVersion.compareTo("2019-08-01") >= 0) {
        n.put("EventSource", spec.eventSource());
      }
      if (apiVersion.compareTo("2020-07-01") >= 0) {
        n.put("DurationInSeconds", spec.durationInSeconds());
      }
      spec.extraFields().forEach((k, v) -> n.set(k, JSON.valueToTree(v)));
      return n;
    }
  }
}
