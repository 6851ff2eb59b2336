package dev.sebridge.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.MalformedDocumentException;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.VmIdentity;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * IMDS in memory, for tests that must not wait on HTTP or real time: events are added, started and
 * removed by the test; a POST starts the Scheduled events it names (as IMDS does once approved),
 * unless {@link #startOnApproval(boolean)} is off; failures are queued per call.
 */
public final class FakeImds implements Imds {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC).withLocale(Locale.US);

  private final Clock clock;
  private Runnable onPost = () -> {};
  private final VmIdentity vm;
  private final Map<String, ObjectNode> events = new LinkedHashMap<>();
  private final Deque<ImdsFailure.Kind> readFailures = new ArrayDeque<>();
  private final Deque<ImdsFailure.Kind> postFailures = new ArrayDeque<>();
  private final List<List<String>> posts = new ArrayList<>();
  private long incarnation = 1;
  private boolean startOnApproval = true;
  private int reads;

  public FakeImds(VmIdentity vm, Clock clock) {
    this.vm = vm;
    this.clock = clock;
  }

  public VmIdentity vm() {
    return vm;
  }

  /** Adds a Scheduled event for these VMs, NotBefore 15 minutes from now; returns its id. */
  public synchronized String schedule(String type, String source, List<String> resources) {
    String id = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
    ObjectNode e = JSON.createObjectNode();
    e.put("EventId", id);
    e.put("EventType", type);
    e.put("ResourceType", "VirtualMachine");
    ArrayNode r = e.putArray("Resources");
    resources.forEach(r::add);
    e.put("EventStatus", "Scheduled");
    e.put("NotBefore", HTTP_DATE.format(clock.instant().plus(Duration.ofMinutes(15))));
    e.put("Description", "");
    e.put("EventSource", source);
    e.put("DurationInSeconds", -1);
    events.put(id.toLowerCase(Locale.ROOT), e);
    incarnation++;
    return id;
  }

  /** A Scheduled platform event of this type for this VM. */
  public String schedule(String type) {
    return schedule(type, "Platform", List.of(vm.name()));
  }

  public synchronized void start(String eventId) {
    ObjectNode e = events.get(eventId.toLowerCase(Locale.ROOT));
    e.put("EventStatus", "Started");
    e.put("NotBefore", "");
    incarnation++;
  }

  public synchronized void remove(String eventId) {
    events.remove(eventId.toLowerCase(Locale.ROOT));
    incarnation++;
  }

  public synchronized String status(String eventId) {
    ObjectNode e = events.get(eventId.toLowerCase(Locale.ROOT));
    return e == null ? "gone" : e.get("EventStatus").asText();
  }

  /** Whether a POST starts the events it approves (true, as on a VM of its own). */
  public synchronized FakeImds startOnApproval(boolean start) {
    this.startOnApproval = start;
    return this;
  }

  /** The next document reads fail with these kinds, one each. */
  public synchronized void failReads(ImdsFailure.Kind... kinds) {
    readFailures.addAll(List.of(kinds));
  }

  /** The next POSTs fail with these kinds, one each. */
  public synchronized void failPosts(ImdsFailure.Kind... kinds) {
    postFailures.addAll(List.of(kinds));
  }

  /** Runs before each POST is answered, on the caller's thread (a slow IMDS, on a moved clock). */
  public synchronized FakeImds onPost(Runnable r) {
    this.onPost = r;
    return this;
  }

  /** The EventIds of every POST that IMDS took, in order. */
  public synchronized List<List<String>> posts() {
    return List.copyOf(posts);
  }

  public synchronized int reads() {
    return reads;
  }

  public synchronized ScheduledEventsDocument document() {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("DocumentIncarnation", incarnation);
    ArrayNode arr = doc.putArray("Events");
    events.values().forEach(e -> arr.add(e.deepCopy()));
    try {
      return DocumentParser.parse(doc);
    } catch (MalformedDocumentException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public URI scheduledEventsUri() {
    return URI.create("memory://imds/metadata/scheduledevents");
  }

  @Override
  public synchronized ImdsResult<ScheduledEventsDocument> scheduledEvents(Duration timeout) {
    reads++;
    ImdsFailure.Kind f = readFailures.poll();
    return f != null ? failed(f) : new ImdsResult.Ok<>(document(), Duration.ZERO);
  }

  @Override
  public ImdsResult<VmIdentity> identity(Duration timeout) {
    return new ImdsResult.Ok<>(vm, Duration.ZERO);
  }

  @Override
  public synchronized ImdsResult<Integer> startEvents(List<String> eventIds, Duration timeout) {
    onPost.run();
    ImdsFailure.Kind f = postFailures.poll();
    if (f != null) {
      return failed(f);
    }
    posts.add(List.copyOf(eventIds));
    if (startOnApproval) {
      for (String id : eventIds) {
        ObjectNode e = events.get(id.toLowerCase(Locale.ROOT));
        if (e != null && e.get("EventStatus").asText().equals("Scheduled")) {
          start(id);
        }
      }
    }
    return new ImdsResult.Ok<>(200, Duration.ZERO);
  }

  private static <T> ImdsResult<T> failed(ImdsFailure.Kind kind) {
    int status =
        switch (kind) {
          case BAD_REQUEST -> 400;
          case THROTTLED -> 429;
          case SERVER_ERROR -> 500;
          case GONE -> 410;
          default -> 0;
        };
    return new ImdsResult.Failed<>(new ImdsFailure(kind, status, "fake " + kind, Duration.ZERO));
  }
}
