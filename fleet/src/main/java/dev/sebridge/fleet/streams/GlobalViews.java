package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.PolicyDecision;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.Topology;

/**
 * The views every instance holds whole ({@link FleetTopology}'s global stores): each fed from its
 * {@code <prefix>-views-*} topic, telling the observer when a view changed and, for VM views, the
 * envelope time now queryable.
 */
final class GlobalViews {
  private GlobalViews() {}

  static void add(
      Topology t,
      Topics topics,
      TopologyObserver observer,
      ViewIndex index,
      Membership membership) {
    if (membership == Membership.INVENTORY) {
      global(
          t,
          FleetTopology.INVENTORY_VIEW,
          topics.of(FleetTopology.INVENTORY),
          new JsonSerde<>(InventoryVm.class),
          observer,
          index,
          r -> {});
    }
    global(
        t,
        FleetTopology.VMS_VIEW,
        topics.of(FleetTopology.VIEWS_VMS),
        new JsonSerde<>(VmView.class),
        observer,
        index,
        r -> {
          if (r.headers().lastHeader(NEWER_ENVELOPE) != null
              && r.value().lastEnvelopeAt() != null) {
            observer.applied(r.value().lastEnvelopeAt());
          }
        });
    global(
        t,
        FleetTopology.EVENTS_VIEW,
        topics.of(FleetTopology.VIEWS_EVENTS),
        JsonSerde.eventViews(),
        observer,
        index,
        r -> {});
    global(
        t,
        FleetTopology.REQUESTS_VIEW,
        topics.of(FleetTopology.VIEWS_REQUESTS),
        new JsonSerde<>(RequestView.class),
        observer,
        index,
        r -> {});
    global(
        t,
        FleetTopology.ROLLOUTS_VIEW,
        topics.of(FleetTopology.VIEWS_ROLLOUTS),
        new RolloutHeaderSerde(),
        observer,
        index,
        r -> {});
    global(
        t,
        FleetTopology.ROLLOUT_PARTS_VIEW,
        topics.of(FleetTopology.VIEWS_ROLLOUT_PARTS),
        new JsonSerde<>(dev.sebridge.fleet.rollout.RolloutPart.class),
        observer,
        index,
        r -> {});
    global(
        t,
        FleetTopology.POLICIES_VIEW,
        topics.of(FleetTopology.VIEWS_POLICIES),
        new JsonSerde<>(PolicyDecision.class),
        observer,
        index,
        r -> {});
  }

  /**
   * The header of a VM's view whose envelope is newer than the view before it ({@link
   * VmProcessor}): its view delay counts once it is queryable (not a silence change, not a late
   * envelope).
   */
  static final String NEWER_ENVELOPE = "sebridge-newer-envelope";

  private static <V> void global(
      Topology t,
      String store,
      String topic,
      org.apache.kafka.common.serialization.Serde<V> values,
      TopologyObserver observer,
      ViewIndex index,
      Consumer<org.apache.kafka.streams.processor.api.Record<String, V>> applied) {
    t.addGlobalStore(
        FleetTopology.store(store, values).withLoggingDisabled(),
        store + "-source",
        new StringDeserializer(),
        values instanceof JsonSerde<V> json ? json.sourceDeserializer() : values.deserializer(),
        topic,
        store + "-updater",
        () ->
            new ViewUpdater<V>(
                store,
                r -> {
                  applied.accept(r);
                  observer.viewChanged(store);
                },
                index,
                observer));
  }
}
