package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.rollout.World;
import java.util.HashMap;
import java.util.Map;

/**
 * What a rollout asks of a request ({@link ViewIndex}): the event it sent commands for (null when
 * it sent none, or was refused), and the agents' results that did not accept, by vmId (what halts a
 * rollout; an accepted result, or none yet, is not kept: a request is kept for {@code
 * fleet.history-retention}, and most of them are accepted).
 */
record RequestFacts(
    String sentEvent, Map<String, World.Result> unaccepted, java.util.List<String> counted) {
  RequestFacts {
    unaccepted = Map.copyOf(unaccepted);
    counted = counted == null ? java.util.List.of() : java.util.List.copyOf(counted);
  }

  /** A request the index keeps nothing of. */
  static final RequestFacts NONE = new RequestFacts(null, Map.of(), null);

  RequestFacts(String sentEvent, Map<String, World.Result> unaccepted) {
    this(sentEvent, unaccepted, null);
  }

  /** What the index keeps of a request view: null when it sent nothing and nothing went wrong. */
  static RequestFacts of(RequestView r) {
    String sent =
        r.commandsSentAt() != null
                && r.request() != null
                && r.request().eventId() != null
                && r.request().refusal() == null
            ? r.request().eventId()
            : null;
    Map<String, World.Result> unaccepted = new HashMap<>();
    r.vms()
        .forEach(
            (vmId, v) -> {
              // A VM without a result (none yet, or a null one in a bad record) halts nothing.
              if (v != null && v.outcome() != null && !v.outcome().equals("accepted")) {
                unaccepted.put(vmId, result(v));
              }
            });
    if (sent == null && unaccepted.isEmpty()) {
      return null;
    }
    // The VMs it counted, kept only where an agent refused it for one it did not count: what a
    // rollout's next release of the event must go beyond (RolloutPlanner).
    boolean changed = unaccepted.values().stream().anyMatch(World.Result::resourcesChanged);
    return new RequestFacts(
        sent, unaccepted, changed && r.request() != null ? r.request().counted() : null);
  }

  /** The agent's result as a rollout reads it: the reason with its code in front. */
  static World.Result result(RequestView.VmResult v) {
    return new World.Result(
        v.outcome(),
        (v.reasonCode() == null ? "" : v.reasonCode() + ": ") + v.reason(),
        v.reasonCode());
  }
}
