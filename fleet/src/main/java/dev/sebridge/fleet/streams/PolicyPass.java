package dev.sebridge.fleet.streams;

import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.rollout.Ledger;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.PolicyRule;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutActions;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The central policies' pass of a rollout processor tick: each open event is decided once; an
 * {@code approve} rule goes through the fleet-wide ledger like any release, a {@code rollout} rule
 * adds the event to its rollout. Runs on the rollout processor's thread, with its stores.
 */
final class PolicyPass {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyPass.class);

  /** What a pass hands back to the rollout processor. */
  interface Outputs {
    /** An approval the ledger admitted, sent once the ledger is written. */
    void approve(String requestId, ApprovalRequest admitted);

    /** A decision, for the policies view. */
    void decided(String key, PolicyDecision d);

    /** A policy rollout created or grown. */
    void save(Rollout r);

    Instant now();
  }

  private final Policies policies;
  private final GlobalWorld world;
  private final RolloutStore rollouts;
  private final KeyValueStore<String, PolicyDecision> decisions;
  private final Outputs out;
  // Open events known decided (this task's memo of the decisions store).
  private final java.util.Set<String> decided = new java.util.HashSet<>();

  PolicyPass(
      Policies policies,
      GlobalWorld world,
      RolloutStore rollouts,
      KeyValueStore<String, PolicyDecision> decisions,
      Outputs out) {
    this.policies = policies;
    this.world = world;
    this.rollouts = rollouts;
    this.decisions = decisions;
    this.out = out;
  }

  /** Each open event is decided once by the policies; a rollout rule adds it to its rollout. */
  void decide(Ledger ledger) {
    if (policies.rules().isEmpty()) {
      return;
    }
    // The open events (the index has them apart: no scan of every event), those with a VM still
    // scheduled that the policies have not decided. A decided event stays decided while it is open
    // (retention keeps an open event's decision), so it is looked up in the store once.
    decided.removeIf(key -> world.event(key).map(e -> !e.open()).orElse(true));
    List<EventView> undecided = new ArrayList<>();
    for (EventView e : world.openEventViews()) {
      String key = dev.sebridge.fleet.model.EventIds.lower(e.eventId());
      if (decided.contains(key)
          || e.vms().values().stream()
              .noneMatch(v -> v.status().equals("scheduled") && world.known(v.vmId()))) {
        continue;
      }
      if (decisions.get(key) != null) {
        decided.add(key);
      } else {
        undecided.add(e);
      }
    }
    // The events a rollout rule takes first: a rollout it starts binds the approvals of the same
    // pass (they commit with it), whatever the order of the events' ids.
    List<Map.Entry<EventView, PolicyRule>> matched = new ArrayList<>();
    for (EventView e : undecided) {
      matched.add(
          new java.util.AbstractMap.SimpleEntry<>(e, policies.match(knownOnly(e)).orElse(null)));
    }
    matched.sort(
        java.util.Comparator.comparing(
            m -> m.getValue() == null || !m.getValue().action().equals(PolicyRule.ROLLOUT)));
    for (Map.Entry<EventView, PolicyRule> m : matched) {
      EventView e = m.getKey();
      PolicyRule rule = m.getValue();
      String detail = rule == null ? "no rule matched" : act(rule, e, ledger);
      if (detail == null) {
        continue; // not now (a group is at a rollout's limit): decided again next tick
      }
      PolicyDecision d =
          new PolicyDecision(
              e.eventId(),
              rule == null ? null : rule.name(),
              policies.version(),
              rule == null ? "none" : rule.action(),
              rule != null && rule.dryRun(),
              detail,
              now());
      String key = dev.sebridge.fleet.model.EventIds.lower(e.eventId());
      decisions.put(key, d);
      decided.add(key);
      out.decided(key, d);
      LOG.info("policy for event {}: {}", e.eventId(), detail);
    }
  }

  /**
   * The event as the policies see it: only the parts of VMs the fleet knows (with an inventory, an
   * unknown VM's part cannot move an event out of a rule or into one).
   */
  private EventView knownOnly(EventView e) {
    if (e.vms().keySet().stream().allMatch(world::known)) {
      return e;
    }
    java.util.Map<String, dev.sebridge.fleet.model.VmEventState> vms =
        new java.util.LinkedHashMap<>();
    e.vms()
        .forEach(
            (id, v) -> {
              if (world.known(id)) {
                vms.put(id, v);
              }
            });
    return new EventView(
        e.eventId(),
        e.eventType(),
        e.eventSource(),
        e.notBefore(),
        e.durationInSeconds(),
        e.description(),
        e.resources(),
        e.firstSeenAt(),
        e.lastSeenAt(),
        e.closedAt(),
        vms);
  }

  /** What the rule did with the event, or null when it cannot act yet. */
  private String act(PolicyRule rule, EventView e, Ledger ledger) {
    String origin = "policy:" + rule.name() + "@v" + policies.version();
    String reason = "policy " + rule.name() + " v" + policies.version() + ": " + rule.describe();
    if (rule.dryRun()) {
      return "dry run: would " + rule.describe();
    }
    switch (rule.action()) {
      case PolicyRule.APPROVE -> {
        java.util.Optional<Rollout> holder = ledger.holder(e.eventId());
        if (holder.isPresent()) {
          return "held by rollout " + holder.get().id() + ": " + origin + " leaves it to it";
        }
        java.util.Optional<String> refusal = ledger.refusal(e.eventId(), world, now());
        if (refusal.isPresent()) {
          LOG.debug("policy {} for event {}: not now, {}", origin, e.eventId(), refusal.get());
          return null;
        }
        ledger.release(e.eventId(), world, origin, now());
        List<String> vms =
            e.vms().values().stream()
                .filter(v -> v.status().equals("scheduled"))
                .map(VmEventState::vmId)
                .toList();
        String requestId =
            NameBasedUuid.v5(
                    NameBasedUuid.SEBRIDGE_NAMESPACE,
                    "fleet-policy|" + e.eventId() + "|" + policies.version())
                .toString();
        // The VMs Azure lists that no live agent can approve it for: through the Maintenance API,
        // as the API approves them (fleet.acknowledge.enabled).
        dev.sebridge.fleet.model.Acknowledgement acknowledge =
            world.acknowledges()
                ? dev.sebridge.fleet.model.Acknowledgement.of(e, world::live)
                : null;
        out.approve(
            requestId,
            new ApprovalRequest(
                    requestId,
                    e.eventId(),
                    vms,
                    reason,
                    "policy:" + rule.name(),
                    now(),
                    origin,
                    null,
                    null,
                    null,
                    acknowledge)
                .admit(dev.sebridge.fleet.rollout.ListedVms.counted(e.eventId(), world)));
        return "approved by " + origin + ": request " + requestId;
      }
      case PolicyRule.ROLLOUT -> {
        // One rollout at a time per rule and policies version; a completed one is never reused
        // (its successor takes the next id), an aborted one suspends the rule until the policies
        // change: an operator stopped it, and the next matching event must not start it again.
        String base = "policy-" + rule.name() + "-v" + policies.version();
        String id = base;
        Rollout r = rollouts.get(id);
        for (int n = 2; r != null && r.state().equals(Rollout.COMPLETED); n++) {
          id = base + "-" + n;
          r = rollouts.get(id);
        }
        if (r != null && r.state().equals(Rollout.ABORTED)) {
          return "suspended: rollout "
              + id
              + " of "
              + origin
              + " was aborted; the rule acts again once the policies' version changes";
        }
        if (r == null) {
          RolloutSpec spec = rule.rollout().withEvents(List.of());
          r =
              RolloutActions.apply(
                  null,
                  new RolloutCommand(
                      id,
                      RolloutCommand.CREATE,
                      spec,
                      null,
                      null,
                      reason,
                      "policy:" + rule.name(),
                      now(),
                      origin),
                  now());
        }
        Rollout saved = RolloutActions.addEvent(r, e.eventId(), now());
        out.save(saved);
        // Its limits bind the pass's later approvals at once: they commit with it, and then it is
        // active. (Until 2026-11-29 a rollout the pass started bound only the next tick's.)
        ledger.constrain(saved);
        return "rolled out by " + origin + " in rollout " + id;
      }
      default -> {
        return "never approved (" + origin + ")";
      }
    }
  }

  private Instant now() {
    return out.now();
  }
}
