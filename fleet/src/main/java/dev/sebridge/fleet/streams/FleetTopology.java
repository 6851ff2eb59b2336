package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.ResultReport;
import dev.sebridge.fleet.model.VmEventUpdate;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.state.CrashPoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The fleet service's data flow, built in this one place:
 *
 * <pre>
 * [envelopes] (key vmId) --validate--+--> vms (vm-state) ------------------------> [views-vms]
 *                                    +--> fan-out --by event--> [by-event] --> events (event-state)
 *                                    |                                              --> [views-events]
 *                                    +--------by request-----> [by-request] --+
 * [approvals] (audit, key request id) ----------------------------------------+--> requests
 *     (request-state) --> [commands] (key vmId, the agent's partition) + [views-requests]
 *                       + [acknowledgements] (VMs without an agent) --> Acknowledger
 *                         (Maintenance API) --> [by-request]
 *
 * [rollouts] (operators' commands) --> rollouts (rollout-state, policy-state; steps every
 *     second against the global views) --> [approvals] (audited requests) + [views-rollouts]
 *     + [views-policies]
 *
 * [views-*] --> global stores vms-view, events-view, requests-view: every instance holds the
 *               whole (small) fleet view and answers any query from it.
 * </pre>
 *
 * Topics are named {@code <prefix>-<name>} except the envelopes, commands and approvals (audit)
 * topics, which are configured. The processors hold in-memory stores backed by changelogs: an
 * instance that takes over a partition rebuilds them from there.
 */
public final class FleetTopology {
  // State stores, each owned by one processor.
  /** VM views by vmId, from the VM's own envelopes. */
  public static final String VM_STATE = "vm-state";

  /** Event views by EventId (lower case), merged from every VM that reports the event. */
  public static final String EVENT_STATE = "event-state";

  /** Approval requests by request id, with each VM's command and result. */
  public static final String REQUEST_STATE = "request-state";

  /** Rollouts' headers by id ({@link dev.sebridge.fleet.rollout.RolloutParts}). */
  public static final String ROLLOUT_STATE = "rollout-state";

  /**
   * Rollouts' entries, a VM's part or an event, by {@link
   * dev.sebridge.fleet.rollout.RolloutPart#vmKey} and {@link
   * dev.sebridge.fleet.rollout.RolloutPart#eventKey}.
   */
  public static final String ROLLOUT_PARTS_STATE = "rollout-parts-state";

  /** The central policies' decision for each event, by EventId (lower case). */
  public static final String POLICY_STATE = "policy-state";

  /**
   * The fleet-wide ledger of unavailable VMs ({@link dev.sebridge.fleet.rollout.Ledger}), by {@code
   * <vmId or name:<name>>|<eventId>}: every VM an event released, until it is back.
   */
  public static final String LEDGER_STATE = "ledger-state";

  // Global stores: the views every instance queries.
  public static final String VMS_VIEW = "vms-view";
  public static final String EVENTS_VIEW = "events-view";
  public static final String REQUESTS_VIEW = "requests-view";
  public static final String ROLLOUTS_VIEW = "rollouts-view";
  public static final String ROLLOUT_PARTS_VIEW = "rollout-parts-view";
  public static final String POLICIES_VIEW = "policies-view";
  public static final String INVENTORY_VIEW = "inventory-view";

  // Node names.
  static final String BY_EVENT_SINK = "by-event-sink";
  static final String VMS_VIEW_SINK = "vms-view-sink";
  static final String BY_REQUEST_SINK = "by-request-sink";
  static final String COMMANDS_SINK = "commands-sink";
  static final String REQUESTS_VIEW_SINK = "requests-view-sink";
  static final String APPROVALS_SINK = "approvals-sink";
  static final String ROLLOUTS_VIEW_SINK = "rollouts-view-sink";
  static final String ROLLOUT_PARTS_VIEW_SINK = "rollout-parts-view-sink";
  static final String POLICIES_VIEW_SINK = "policies-view-sink";
  static final String ACKNOWLEDGEMENTS_SINK = "acknowledgements-sink";

  // Topic names (suffixes of the prefix): internal ones, then the views.
  public static final String BY_EVENT = "by-event";

  /**
   * Azure's central scheduled events, as the Event Grid subscription delivers them
   * (deploy/azure/fleet.bicep); read when {@link Topics#centralEvents()}.
   */
  public static final String AGENTLESS_EVENTS = "agentless-events";

  public static final String BY_REQUEST = "by-request";

  /**
   * Orders to acknowledge scheduled events through Azure's Maintenance API, for VMs without a live
   * agent ({@link dev.sebridge.fleet.model.AcknowledgeOrder}, keyed by request id); written when
   * {@link Topics#acknowledgements()}.
   */
  public static final String ACKNOWLEDGEMENTS = "acknowledgements";

  public static final String VIEWS_VMS = "views-vms";
  public static final String VIEWS_EVENTS = "views-events";
  public static final String VIEWS_REQUESTS = "views-requests";
  public static final String VIEWS_ROLLOUTS = "views-rollouts";
  public static final String VIEWS_ROLLOUT_PARTS = "views-rollout-parts";
  public static final String VIEWS_POLICIES = "views-policies";

  /** The global views' topics (each compacted: the latest record per key), inventory aside. */
  public static final List<String> VIEW_TOPICS =
      List.of(
          VIEWS_VMS,
          VIEWS_EVENTS,
          VIEWS_REQUESTS,
          VIEWS_ROLLOUTS,
          VIEWS_ROLLOUT_PARTS,
          VIEWS_POLICIES);

  /** Azure's inventory of VMs, keyed by lower-case vmId ({@code fleet.inventory.*}). */
  public static final String INVENTORY = "inventory";

  /** Operators' rollout commands (one partition: one task runs every rollout). */
  public static final String ROLLOUTS = "rollouts";

  /**
   * The Streams producer's {@code max.request.size} and {@code max.message.bytes} of the topics
   * that carried whole rollouts (the state's changelog, {@code <prefix>-views-rollouts}): headroom
   * kept from when a rollout was one record of up to 9 MB. A rollout is stored in parts now ({@link
   * dev.sebridge.fleet.rollout.RolloutParts}), and no record the fleet writes grows with a rollout.
   * Records are compressed (zstd) on the wire.
   */
  public static final int MAX_RECORD_BYTES = 16 * 1024 * 1024;

  private FleetTopology() {}

  /**
   * @param silentAfter heartbeat intervals without an envelope after which a VM is silent
   * @param retention how long a closed event stays queryable
   * @param observer told what the metrics need
   */
  public static Topology build(
      Topics topics,
      CommandIssuer issuer,
      int silentAfter,
      Duration retention,
      TopologyObserver observer) {
    return build(
        topics,
        issuer,
        silentAfter,
        Retention.closedEvents(retention),
        observer,
        Policies.none(),
        Duration.ofSeconds(1),
        () -> 0,
        ReplayGate.NONE,
        ViewsGate.NONE,
        Membership.AGENTS);
  }

  /**
   * @param policies the central policies
   * @param tick how often rollouts step and new events are decided
   * @param commandPartitions partitions of the commands topic (0: unknown, misroutes not checked)
   * @param replay whether the rollouts task has caught up with the rollouts topic ({@link
   *     ReplayGate}): until it has, nothing is stepped or released
   * @param views whether the global views are too far behind to release ({@link ViewsGate}): while
   *     they are, nothing is stepped or released
   * @param membership where VMs' groups and membership come from
   */
  public static Topology build(
      Topics topics,
      CommandIssuer issuer,
      int silentAfter,
      Retention retention,
      TopologyObserver observer,
      Policies policies,
      Duration tick,
      java.util.function.IntSupplier commandPartitions,
      ReplayGate replay,
      ViewsGate views,
      Membership membership) {
    Serde<String> keys = Serdes.String();
    JsonSerde<VmView> vmViews = new JsonSerde<>(VmView.class);
    JsonSerde<EventView> eventViews = JsonSerde.eventViews(retention.packClosed());
    JsonSerde<RequestView> requestViews = new JsonSerde<>(RequestView.class);
    JsonSerde<VmEventUpdate> updates = new JsonSerde<>(VmEventUpdate.class);
    JsonSerde<ResultReport> results = new JsonSerde<>(ResultReport.class);
    JsonSerde<ApprovalRequest> requests = new JsonSerde<>(ApprovalRequest.class);

    Topology t = new Topology();
    // What the rollouts task reads of the global views each tick, kept change by change.
    ViewIndex index = new ViewIndex(membership);
    // VMs, and what their envelopes say about events and requests.
    t.addSource(
        "envelopes",
        new StringDeserializer(),
        new EnvelopeSerde().deserializer(),
        topics.envelopes());
    t.addProcessor(
        "vms", () -> new VmProcessor(silentAfter, retention.vms(), membership), "envelopes");
    t.addStateStore(store(VM_STATE, vmViews), "vms");
    t.addSink(
        VMS_VIEW_SINK,
        topics.of(VIEWS_VMS),
        new StringSerializer(),
        untyped(vmViews.serializer()),
        "vms");
    t.addProcessor("fan-out", () -> new FanOut(membership), "envelopes");
    List<String> toEvents = new ArrayList<>(List.of("fan-out", "vms"));
    CentralFanOut.addTo(t, topics).ifPresent(toEvents::add);
    t.addSink(
        BY_EVENT_SINK,
        topics.of(BY_EVENT),
        new StringSerializer(),
        untyped(updates.serializer()),
        toEvents.toArray(String[]::new));
    t.addSink(
        BY_REQUEST_SINK,
        topics.of(BY_REQUEST),
        new StringSerializer(),
        untyped(results.serializer()),
        "fan-out");

    // Events, keyed by EventId.
    t.addSource("by-event", new StringDeserializer(), updates.deserializer(), topics.of(BY_EVENT));
    t.addProcessor(
        "events",
        () -> new EventProcessor(retention.closedEvents(), retention.vms(), observer, membership),
        "by-event");
    t.addStateStore(store(EVENT_STATE, eventViews), "events");
    t.addSink(
        "events-view-sink",
        topics.of(VIEWS_EVENTS),
        new StringSerializer(),
        eventViews.serializer(),
        "events");

    // Approval requests (audited first) and their results, keyed by request id.
    t.addSource(
        "approvals",
        new StringDeserializer(),
        untypedIn(requests.deserializer()),
        topics.approvals());
    t.addSource(
        "by-request",
        new StringDeserializer(),
        untypedIn(results.deserializer()),
        topics.of(BY_REQUEST));
    t.addProcessor(
        "requests",
        () ->
            new RequestProcessor(
                issuer,
                CrashPoints.fromSystemProperties(),
                retention.history(),
                topics.acknowledgements()),
        "approvals",
        "by-request");
    t.addStateStore(store(REQUEST_STATE, requestViews), "requests");
    t.addSink(
        COMMANDS_SINK,
        topics.commands(),
        new StringSerializer(),
        untyped(new ByteArraySerializer()),
        new AgentPartition(),
        "requests");
    t.addSink(
        REQUESTS_VIEW_SINK,
        topics.of(VIEWS_REQUESTS),
        new StringSerializer(),
        untyped(requestViews.serializer()),
        "requests");
    if (topics.acknowledgements()) {
      t.addSink(
          ACKNOWLEDGEMENTS_SINK,
          topics.of(ACKNOWLEDGEMENTS),
          new StringSerializer(),
          untyped(new JsonSerde<>(dev.sebridge.fleet.model.AcknowledgeOrder.class).serializer()),
          "requests");
    }

    // Rollouts and policies: one task; approvals go out through the audit topic like any other.
    RolloutsTopology.add(t, topics, policies, tick, replay, views, retention, observer, index);

    // Every command on the topic, whoever wrote it: is it where its VM's agent reads?
    t.addSource(
        "commands-check",
        new StringDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
        topics.commands());
    t.addProcessor(
        "misrouted", () -> new MisrouteProcessor(commandPartitions, observer), "commands-check");

    // The views, whole on every instance.
    GlobalViews.add(t, topics, observer, index, membership);
    return t;
  }

  static <V> StoreBuilder<KeyValueStore<String, V>> store(String name, Serde<V> values) {
    return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values);
  }

  @SuppressWarnings("unchecked")
  static <T> Serializer<Object> untyped(Serializer<T> s) {
    return (topic, value) -> s.serialize(topic, (T) value);
  }

  private static <T> Deserializer<Object> untypedIn(Deserializer<T> d) {
    return d::deserialize;
  }
}
