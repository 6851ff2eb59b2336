package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutPart;
import dev.sebridge.state.CrashPoints;
import java.time.Duration;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;

/**
 * The rollouts and policies part of {@link FleetTopology}: one task reads the operators' commands
 * on the rollouts topic, keeps the rollouts, the policies' decisions and the fleet-wide ledger, and
 * sends approvals through the audit topic like any other path ({@link RolloutProcessor}).
 */
final class RolloutsTopology {
  private RolloutsTopology() {}

  static void add(
      Topology t,
      Topics topics,
      Policies policies,
      Duration tick,
      ReplayGate replay,
      ViewsGate views,
      Retention retention,
      TopologyObserver observer,
      ViewIndex index) {
    JsonSerde<PolicyDecision> decisions = new JsonSerde<>(PolicyDecision.class);
    t.addSource(
        "rollout-commands",
        new StringDeserializer(),
        new JsonSerde<>(RolloutCommand.class).deserializer(),
        topics.of(FleetTopology.ROLLOUTS));
    t.addProcessor(
        "rollouts",
        () ->
            new RolloutProcessor(
                policies,
                tick,
                CrashPoints.fromSystemProperties(),
                replay,
                views,
                retention.history(),
                observer,
                index,
                topics.acknowledgements()),
        "rollout-commands");
    JsonSerde<RolloutPart> rolloutParts = new JsonSerde<>(RolloutPart.class);
    RolloutHeaderSerde headers = new RolloutHeaderSerde();
    t.addStateStore(FleetTopology.store(FleetTopology.ROLLOUT_STATE, headers), "rollouts");
    t.addStateStore(
        FleetTopology.store(FleetTopology.ROLLOUT_PARTS_STATE, rolloutParts), "rollouts");
    t.addStateStore(FleetTopology.store(FleetTopology.POLICY_STATE, decisions), "rollouts");
    t.addStateStore(
        FleetTopology.store(
            FleetTopology.LEDGER_STATE,
            new JsonSerde<>(dev.sebridge.fleet.rollout.LedgerEntry.class)),
        "rollouts");
    t.addSink(
        FleetTopology.APPROVALS_SINK,
        topics.approvals(),
        new StringSerializer(),
        FleetTopology.untyped(new JsonSerde<>(ApprovalRequest.class).serializer()),
        "rollouts");
    t.addSink(
        FleetTopology.ROLLOUTS_VIEW_SINK,
        topics.of(FleetTopology.VIEWS_ROLLOUTS),
        new StringSerializer(),
        FleetTopology.untyped(headers.serializer()),
        "rollouts");
    t.addSink(
        FleetTopology.ROLLOUT_PARTS_VIEW_SINK,
        topics.of(FleetTopology.VIEWS_ROLLOUT_PARTS),
        new StringSerializer(),
        FleetTopology.untyped(rolloutParts.serializer()),
        "rollouts");
    t.addSink(
        FleetTopology.POLICIES_VIEW_SINK,
        topics.of(FleetTopology.VIEWS_POLICIES),
        new StringSerializer(),
        FleetTopology.untyped(decisions.serializer()),
        "rollouts");
  }
}
