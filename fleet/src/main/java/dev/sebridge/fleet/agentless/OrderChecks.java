package dev.sebridge.fleet.agentless;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.fleet.model.AcknowledgeOrder;
import dev.sebridge.fleet.model.Acknowledgement;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link Acknowledger} does with each record of the orders topic: acts on an order whose
 * request the requests view holds audited and admitted for the same event, ARM id and VMs; answers
 * one past its lifetime {@code expired}, and one whose request the view does not have {@code
 * not-admitted} after it waited {@link #VIEW_WAIT} from when it was first read; passes over what is
 * not an order, or not that request's order, writing nothing under its keys.
 */
final class OrderChecks {
  private static final Logger LOG = LoggerFactory.getLogger(OrderChecks.class);

  /** How long an order waits for this instance's view to show its request. */
  static final Duration VIEW_WAIT = Duration.ofMinutes(1);

  /** The longest lifetime an order may have: a command's longest. */
  static final Duration MAX_LIFETIME = Duration.ofMinutes(10);

  private final ObjectMapper json;
  private final Function<String, Optional<RequestView>> requests;
  private final Function<String, Optional<EventView>> events;
  // When each waiting order was first read (partition and offset): it waits VIEW_WAIT from then.
  // Only orders a partition stopped at are here, one per partition at most; dropped when answered.
  private final Map<String, Instant> firstRead = new java.util.concurrent.ConcurrentHashMap<>();
  // The orders acted on (by request: one order each), as long as they could be read again (a commit
  // that failed): forgotten an hour after, past any order's lifetime.
  private final Map<String, Instant> acted = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param requests the requests view, by request id
   * @param events the events view, by EventId (throws while the views cannot be read)
   */
  OrderChecks(
      ObjectMapper json,
      Function<String, Optional<RequestView>> requests,
      Function<String, Optional<EventView>> events) {
    this.json = json;
    this.requests = requests;
    this.events = events;
  }

  /** One order's fate in a batch. */
  sealed interface Fate permits Act, Answer, Skip, Wait {}

  /** Acknowledge through Azure. */
  record Act(AcknowledgeOrder order) implements Fate {}

  /** Answered without calling Azure. */
  record Answer(AcknowledgeOrder order, MaintenanceApi.Outcome outcome) implements Fate {}

  /** Not an order: passed over. */
  record Skip() implements Fate {}

  /** The view does not show its request yet. */
  record Wait(AcknowledgeOrder order) implements Fate {}

  /** What to do with one record. */
  Fate fate(ConsumerRecord<String, byte[]> r, Instant now) {
    AcknowledgeOrder o = read(r);
    if (o == null) {
      return new Skip();
    }
    if (o.issuedAt().isAfter(now.plus(VIEW_WAIT))
        || Duration.between(o.issuedAt(), o.expiresAt()).compareTo(MAX_LIFETIME) > 0) {
      LOG.error(
          "acknowledger: the order at {}-{}@{} (issued {}, to expire {}) is not one the fleet"
              + " writes; passed over, nothing sent",
          r.topic(),
          r.partition(),
          r.offset(),
          o.issuedAt(),
          o.expiresAt());
      return new Skip();
    }
    if (!now.isBefore(o.expiresAt())) {
      return new Answer(o, expired(o));
    }
    Optional<RequestView> view;
    try {
      view = requests.apply(o.requestId());
    } catch (RuntimeException notReady) {
      // The views cannot be read (the streams are starting or rebalancing): it waits.
      return new Wait(o);
    }
    if (view.isEmpty() || view.get().request() == null) {
      // The view follows the commit that wrote the order; it waits for it a while from when the
      // order was first read (a view behind after a restart), then the order is refused.
      Instant first = firstRead.computeIfAbsent(key(r), k -> now);
      return now.isBefore(first.plus(VIEW_WAIT))
          ? new Wait(o)
          : new Answer(
              o,
              MaintenanceApi.Outcome.failed(
                  "not-admitted",
                  "not sent: the requests view has no request "
                      + o.requestId()
                      + " (only an audited request the fleet-wide ledger admitted is"
                      + " acknowledged)"));
    }
    ApprovalRequest q = view.get().request();
    Acknowledgement a = q.acknowledge();
    boolean same =
        q.wasAdmitted()
            && q.refusal() == null
            && q.eventId() != null
            && q.eventId().equalsIgnoreCase(o.eventId())
            && a != null
            && a.resourceId().equals(o.resourceId())
            && a.vms().equals(o.vms())
            && AzureScheduledEvent.isScheduledEventId(o.resourceId(), o.eventId());
    if (!same) {
      // Not the request's order: nothing is sent, and nothing is written under the request's
      // keys (its VMs' outcomes are its own order's to give).
      LOG.error(
          "acknowledger: the order at {}-{}@{} does not match request {} as audited and admitted"
              + " (its event, scheduled event or VMs); passed over, nothing sent",
          r.topic(),
          r.partition(),
          r.offset(),
          o.requestId());
      return new Skip();
    }
    List<String> added;
    try {
      // (an order this instance acted on, read again after its commit failed, is acted on again
      // whatever the view shows since: Azure may have taken the first acknowledgement)
      added = acted.containsKey(o.requestId()) ? List.of() : notCounted(q, o.eventId());
    } catch (RuntimeException notReady) {
      return new Wait(o);
    }
    if (!added.isEmpty()) {
      return new Answer(
          o,
          MaintenanceApi.Outcome.rejected(
              "resources-changed",
              "not sent: event "
                  + o.eventId()
                  + " lists "
                  + String.join(", ", added)
                  + " in the fleet's view, which the fleet did not count when it released it"
                  + " (Azure added it since): acknowledging would release it too"));
    }
    return new Act(o);
  }

  /**
   * The names the events view lists for the event that the request did not count ({@link
   * ApprovalRequest#counted}): VMs Azure added to the event after the fleet released it, which an
   * acknowledgement would release too (the Maintenance API takes no list of VMs to hold Azure to;
   * this view can only narrow that window, it may not show Azure's change yet). Empty when the
   * request counted none by name, or the view does not show the event.
   */
  private List<String> notCounted(ApprovalRequest q, String eventId) {
    if (q.counted() == null) {
      return List.of();
    }
    return ApprovalRequest.notCounted(
        q.counted(), events.apply(eventId).map(EventView::listedNames).orElse(List.of()));
  }

  static MaintenanceApi.Outcome expired(AcknowledgeOrder o) {
    return MaintenanceApi.Outcome.failed(
        "expired",
        "not sent when the order was read this time: its lifetime ended at "
            + o.expiresAt()
            + " (an earlier reading may have reached Azure; the fleet counts the event as"
            + " released either way)");
  }

  /** An order, or null for a record that is not one (logged, and passed over). */
  private AcknowledgeOrder read(ConsumerRecord<String, byte[]> r) {
    try {
      AcknowledgeOrder o =
          r.value() == null ? null : json.readValue(r.value(), AcknowledgeOrder.class);
      if (o == null
          || o.requestId() == null
          || o.eventId() == null
          || o.resourceId() == null
          || MaintenanceApi.parentOf(o.resourceId()) == null
          || o.issuedAt() == null
          || o.expiresAt() == null
          || o.vms().isEmpty()) {
        throw new IllegalArgumentException("not a complete order");
      }
      return o;
    } catch (java.io.IOException | RuntimeException e) {
      LOG.error(
          "acknowledger: record {}-{}@{} is not an order; passed over: {}",
          r.topic(),
          r.partition(),
          r.offset(),
          e.getMessage());
      return null;
    }
  }

  /**
   * The order was sent to Azure (whatever the answer): read again (its commit failed), it is sent
   * again without the check of its event's names (Azure may have taken it).
   */
  void acted(AcknowledgeOrder o, Instant now) {
    acted.put(o.requestId(), now);
  }

  /** The record was answered (or passed over): it waits no more. */
  void answered(ConsumerRecord<String, byte[]> r) {
    firstRead.remove(key(r));
  }

  /** A partition revoked while its order waited leaves its entry: forgotten after an hour. */
  void forgetOld(Instant now) {
    firstRead.values().removeIf(t -> t.isBefore(now.minus(Duration.ofHours(1))));
    acted.values().removeIf(t -> t.isBefore(now.minus(Duration.ofHours(1))));
  }

  private static String key(ConsumerRecord<String, byte[]> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }
}
