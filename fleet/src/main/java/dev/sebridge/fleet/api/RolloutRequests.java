package dev.sebridge.fleet.api;

import dev.sebridge.envelope.NameBasedUuid;
import dev.sebridge.fleet.auth.Principal;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and steers rollouts: checks a request against the views, then writes it to the rollouts
 * topic (their audit trail), where the rollout processor applies it. Only approvers may.
 */
public final class RolloutRequests {
  private static final Logger LOG = LoggerFactory.getLogger(RolloutRequests.class);

  private final Producer<String, RolloutCommand> producer;
  private final String topic;
  private final FleetViews views;
  private final Clock clock;
  private final RecentWrites<RolloutCommand> recent;

  public RolloutRequests(
      Producer<String, RolloutCommand> producer, String topic, FleetViews views, Clock clock) {
    this.producer = producer;
    this.topic = topic;
    this.views = views;
    this.clock = clock;
    this.recent = new RecentWrites<>(clock);
  }

  /** Starts a rollout of these open events; the rollout's id. */
  public String create(RolloutSpec spec, String reason, Principal p, String idempotencyKey) {
    check(p, reason);
    String problem = spec.problem();
    if (problem != null) {
      throw new ApiException(400, problem);
    }
    if (idempotencyKey != null && idempotencyKey.length() > 128) {
      throw new ApiException(400, "an Idempotency-Key has at most 128 characters");
    }
    String id =
        idempotencyKey == null || idempotencyKey.isBlank()
            ? UUID.randomUUID().toString()
            : NameBasedUuid.v5(
                    NameBasedUuid.SEBRIDGE_NAMESPACE,
                    "fleet-rollout-request|" + p.id() + "|" + idempotencyKey)
                .toString();
    // The key first: a retry of a rollout already made answers with it, whatever its events did
    // since, and the same key for another rollout is refused (ids are never reused).
    boolean keyed = idempotencyKey != null && !idempotencyKey.isBlank();
    if (keyed) {
      java.util.Optional<Rollout> earlier =
          recent.get(id).map(w -> asRollout(w.await())).or(() -> views.rollouts().get(id));
      if (earlier.isPresent()) {
        return again(earlier.get(), spec, reason, idempotencyKey, id);
      }
    }
    List<String> ids = new ArrayList<>();
    for (String eventId : spec.eventIds()) {
      EventView e =
          views.event(eventId).orElseThrow(() -> new ApiException(404, "no event " + eventId));
      if (!e.open()) {
        throw new ApiException(409, "event " + eventId + " is over");
      }
      Audited.notForbiddenByPolicy(views, eventId);
      ids.add(e.eventId());
    }
    RolloutCommand create =
        new RolloutCommand(
            id,
            RolloutCommand.CREATE,
            spec.withEvents(ids),
            null,
            null,
            reason,
            p.name(),
            clock.instant(),
            "api");
    if (keyed) {
      // The same key at once (a retry before the views show the first): one of them is written.
      java.util.Optional<RecentWrites.Write<RolloutCommand>> first = recent.putIfAbsent(id, create);
      if (first.isPresent()) {
        return again(asRollout(first.get().await()), spec, reason, idempotencyKey, id);
      }
    }
    try {
      send(create);
    } catch (RuntimeException e) {
      if (keyed) {
        recent.failed(id, e); // not known to be written: a retry writes it again
      }
      throw e;
    }
    if (keyed) {
      recent.written(id);
    }
    return id;
  }

  /**
   * Resume, skip (a VM, or every VM of an event) or abort.
   *
   * @param halt for resume: the halt it resumes (the rollout's {@code halt.at}), or null (the halt
   *     this instance's view shows): 409 when the rollout is not halted so; a resume that reaches
   *     the rollout after it halted again resumes nothing
   */
  public void act(
      String rolloutId,
      String action,
      String vmId,
      String eventId,
      Instant halt,
      String reason,
      Principal p) {
    check(p, reason);
    Rollout r =
        views
            .rollouts()
            .get(rolloutId)
            .orElseThrow(() -> new ApiException(404, "no rollout " + rolloutId));
    if (!r.active()) {
      throw new ApiException(409, "rollout " + rolloutId + " is " + r.state());
    }
    switch (action) {
      case RolloutCommand.RESUME -> {
        if (r.halt() == null) {
          throw new ApiException(409, "rollout " + rolloutId + " is not halted");
        }
        if (halt != null && !halt.equals(r.halt().at())) {
          throw new ApiException(
              409,
              "rollout "
                  + rolloutId
                  + " is not halted at "
                  + halt
                  + " but since "
                  + r.halt().at()
                  + ": "
                  + r.halt().reason()
                  + " (read it again before resuming)");
        }
      }
      case RolloutCommand.SKIP -> {
        if ((vmId == null) == (eventId == null)) {
          throw new ApiException(400, "skip takes a vmId or an eventId");
        }
        if (vmId != null && !r.hasVm(vmId)) {
          throw new ApiException(404, "rollout " + rolloutId + " has no VM " + vmId);
        }
        if (eventId != null && r.spec().eventIds().stream().noneMatch(eventId::equalsIgnoreCase)) {
          // (accepted before 2026-11-28: an audited skip that skipped nothing)
          throw new ApiException(404, "rollout " + rolloutId + " has no event " + eventId);
        }
      }
      case RolloutCommand.ABORT -> {}
      default -> throw new ApiException(404, "no such rollout action: " + action);
    }
    // A resume names the halt it resumes, as given or as this view shows it: sent again, or
    // arriving after the rollout halted again, it resumes nothing.
    Instant resumes = action.equals(RolloutCommand.RESUME) ? r.halt().at() : null;
    send(
        new RolloutCommand(
            rolloutId, action, vmId, eventId, reason, p.name(), clock.instant(), resumes));
  }

  /** The rollout a create made earlier under the same key: its id for the same body, else 422. */
  private static String again(
      Rollout earlier, RolloutSpec spec, String reason, String idempotencyKey, String id) {
    if (!sameRequest(earlier, spec, reason)) {
      throw new ApiException(
          422,
          "Idempotency-Key "
              + idempotencyKey
              + " was used for rollout "
              + id
              + " with another body: use a new key for a new rollout");
    }
    return id;
  }

  /** The rollout a create written by this instance starts. */
  private static Rollout asRollout(RolloutCommand create) {
    return dev.sebridge.fleet.rollout.RolloutActions.apply(null, create, create.at());
  }

  /** Whether a rollout is what this create asks for (event ids compared case-insensitively). */
  private static boolean sameRequest(Rollout r, RolloutSpec asked, String reason) {
    java.util.function.Function<List<String>, java.util.Set<String>> ids =
        l ->
            l.stream()
                .map(e -> e.toLowerCase(java.util.Locale.ROOT))
                .collect(java.util.stream.Collectors.toSet());
    RolloutSpec had = r.spec();
    return r.reason().equals(reason)
        && ids.apply(had.eventIds()).equals(ids.apply(asked.eventIds()))
        && had.withEvents(asked.eventIds()).equals(asked);
  }

  private static void check(Principal p, String reason) {
    Audited.approverWithReason(p, reason);
  }

  private void send(RolloutCommand c) {
    Audited.write(
        producer,
        topic,
        c.rolloutId(),
        c,
        "rolloutId",
        c.action().equals(RolloutCommand.CREATE)
            ? "look " + c.rolloutId() + " up, or retry with the same Idempotency-Key"
            : "look rollout " + c.rolloutId() + " up (its history) before sending it again");
    LOG.info("rollout {}: {} by {}, audited ({})", c.rolloutId(), c.action(), c.by(), c.reason());
  }
}
