package dev.sebridge.fleet.rollout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** An operator's action applied to a rollout: create, resume, skip, abort. */
public final class RolloutActions {
  private RolloutActions() {}

  /** The rollout after {@code c}; {@code current} is null for create. */
  public static Rollout apply(Rollout current, RolloutCommand c, Instant now) {
    if (c.action().equals(RolloutCommand.CREATE)) {
      if (current != null) {
        return current; // the same create again (a retried request): nothing new
      }
      return new Rollout(
          c.rolloutId(),
          c.spec(),
          c.reason(),
          c.by(),
          c.origin() == null ? "api" : c.origin(),
          now,
          Rollout.RUNNING,
          null,
          Map.of(),
          Map.of(),
          List.of(),
          List.of(new Rollout.Entry(now, c.by(), "created", c.reason())));
    }
    if (current == null && c.action().equals(RolloutCommand.ABORT)) {
      // An abort of a rollout this state has never had: a replay from a fresh application id
      // (policy rollouts live only in the state, not on the topic). It is kept, aborted, so that
      // the id is never started again and a policy's rule stays suspended.
      return new Rollout(
          c.rolloutId(),
          new RolloutSpec(List.of(), "1", List.of(), java.time.Duration.ZERO, null),
          c.reason(),
          c.by(),
          c.rolloutId().startsWith("policy-") ? "policy:" : "api",
          now,
          Rollout.ABORTED,
          null,
          Map.of(),
          Map.of(),
          List.of(),
          List.of(new Rollout.Entry(now, c.by(), "aborted", c.reason())));
    }
    if (current == null || !current.active()) {
      return current;
    }
    List<Rollout.Entry> history = new ArrayList<>(current.history());
    Map<String, RolloutVm> vms = new TreeMap<>(current.vms());
    Map<String, Instant> unreported = new TreeMap<>(current.unreported());
    Rollout.Halt halt = current.halt();
    Rollout.State state = current.state();
    switch (c.action()) {
      case RolloutCommand.ABORT -> {
        state = Rollout.ABORTED;
        history.add(new Rollout.Entry(now, c.by(), "aborted", c.reason()));
      }
      case RolloutCommand.RESUME -> {
        if (halt == null) {
          return current;
        }
        if (c.halt() != null && !c.halt().equals(halt.at())) {
          // halted again since the halt the operator resumed (a retry, a resume sent twice, or one
          // decided on a view behind): the new halt is left for someone to read, and the history
          // says the resume was not applied
          history.add(
              new Rollout.Entry(
                  now,
                  c.by(),
                  "resume not applied",
                  "it resumed the halt of "
                      + c.halt()
                      + "; halted since "
                      + halt.at()
                      + ": "
                      + halt.reason()));
          return current.withHistory(history);
        }
        String halted = halt.vmId() == null ? null : RolloutVm.key(halt.vmId(), halt.eventId());
        if (halted != null && vms.containsKey(halted)) {
          // its clock starts again, and the result that halted it does not halt it again
          vms.put(halted, vms.get(halted).resumed(now.plus(current.spec().timeout())));
        }
        if (halt.vmId() == null && halt.eventId() != null) {
          // an event waiting for VMs that never reported waits for them again, still held
          unreported.computeIfPresent(halt.eventId(), (e, since) -> now);
        }
        halt = null;
        state = Rollout.RUNNING;
        history.add(new Rollout.Entry(now, c.by(), "resumed", c.reason()));
      }
      case RolloutCommand.SKIP -> {
        List<String> skipped = new ArrayList<>();
        // Skipping a VM skips the whole of each of its events the rollout has not released: IMDS
        // would release the event for every VM it lists, the skipped one included. Its events
        // already released stop being waited for.
        java.util.Set<String> wholeEvents = new java.util.HashSet<>();
        if (c.eventId() != null) {
          wholeEvents.add(c.eventId().toLowerCase(java.util.Locale.ROOT));
        }
        vms.values().stream()
            .filter(v -> v.vmId().equals(c.vmId()) && v.phase().equals(RolloutVm.PENDING))
            .forEach(v -> wholeEvents.add(v.eventId().toLowerCase(java.util.Locale.ROOT)));
        vms.replaceAll(
            (key, v) -> {
              boolean hit =
                  v.vmId().equals(c.vmId())
                      || wholeEvents.contains(v.eventId().toLowerCase(java.util.Locale.ROOT));
              if (!hit || v.done() || (v.unavailable() && v.deadline() == null)) {
                return v;
              }
              skipped.add(v.vmId() + " (" + v.eventId() + ")");
              // A released VM is unavailable all the same: it stops being waited for (no
              // timeout, no result halts) but counts against its group until it is back.
              return v.unavailable() ? v.resumed(null) : v.phase(RolloutVm.SKIPPED);
            });
        if (skipped.isEmpty()) {
          return current;
        }
        unreported
            .keySet()
            .removeIf(e -> wholeEvents.contains(e.toLowerCase(java.util.Locale.ROOT)));
        if (halt != null
            && ((halt.vmId() != null && halt.vmId().equals(c.vmId()))
                || (halt.eventId() != null
                    && wholeEvents.contains(halt.eventId().toLowerCase(java.util.Locale.ROOT))))) {
          halt = null;
          state = Rollout.RUNNING;
        }
        history.add(
            new Rollout.Entry(
                now, c.by(), "skipped", String.join(", ", skipped) + ": " + c.reason()));
      }
      default -> {
        return current;
      }
    }
    return new Rollout(
        current.id(),
        current.spec(),
        current.reason(),
        current.requestedBy(),
        current.origin(),
        current.createdAt(),
        state,
        halt,
        current.groupLimits(),
        vms,
        current.waves(),
        history,
        unreported);
  }

  /** A policy's rollout takes one more event. */
  public static Rollout addEvent(Rollout r, String eventId, Instant now) {
    if (r.spec().eventIds().contains(eventId)) {
      return r;
    }
    List<String> ids = new ArrayList<>(r.spec().eventIds());
    ids.add(eventId);
    List<Rollout.Entry> history = new ArrayList<>(r.history());
    history.add(new Rollout.Entry(now, "fleet", "event added", eventId));
    return new Rollout(
        r.id(),
        r.spec().withEvents(ids),
        r.reason(),
        r.requestedBy(),
        r.origin(),
        r.createdAt(),
        r.state(),
        r.halt(),
        r.groupLimits(),
        r.vms(),
        r.waves(),
        history,
        r.unreported());
  }
}
