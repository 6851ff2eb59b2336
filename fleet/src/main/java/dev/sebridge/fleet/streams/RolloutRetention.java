package dev.sebridge.fleet.streams;

import dev.sebridge.fleet.rollout.PolicyDecision;
import dev.sebridge.fleet.rollout.Rollout;
import dev.sebridge.fleet.rollout.RolloutVm;
import dev.sebridge.fleet.rollout.World;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The rollout task's retention ({@link Retention}), part of {@link RolloutProcessor}: policy
 * decisions and finished API rollouts older than {@code history} are deleted, and a policy's
 * rollout, which never completes, sheds what is over so that its record stays the size of what is
 * under way; one of a policies' version no longer in force is deleted once it has nothing left and
 * nothing happened to it for {@code history}.
 */
final class RolloutRetention {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(RolloutRetention.class);

  private RolloutRetention() {}

  /**
   * @param sweep what the decisions' checks read (at most {@link RequestProcessor#SWEEP} decisions
   *     a check, on from where the last one stopped)
   */
  static void apply(
      RolloutStore rollouts,
      KeyValueStore<String, PolicyDecision> decisions,
      RetentionSweep<PolicyDecision> sweep,
      World world,
      Duration history,
      int policiesVersion,
      MissingEvents missing,
      ProcessorContext<String, Object> context,
      Consumer<Rollout> save) {
    long wallClock = context.currentSystemTimeMs();
    Instant horizon = Instant.ofEpochMilli(wallClock).minus(history);
    // An open event's decision stays: deleted, the event would be decided again.
    List<String> oldDecisions =
        sweep.expired(
            decisions,
            (key, d) -> d.at() != null && d.at().isBefore(horizon) && !world.open(d.eventId()));
    for (String key : oldDecisions) {
      decisions.delete(key);
      context.forward(
          new Record<String, Object>(key, null, wallClock), FleetTopology.POLICIES_VIEW_SINK);
    }

    Set<String> stillMissing = new HashSet<>();
    for (Rollout header : rollouts.headers()) {
      try {
        boolean policy = header.origin() != null && header.origin().startsWith("policy:");
        if (!policy) {
          // The header has the newest waves and actions: enough to tell the last action.
          if (!header.active() && lastAction(header).isBefore(horizon)) {
            rollouts.delete(header.id());
          }
          continue;
        }
        Rollout r = rollouts.get(header.id());
        // A policy's rollout stays (its id is never reused, an aborted one suspends its rule) but
        // drops what is over: events every entry is done with that the events view forgot.
        Rollout shed =
            shed(r, world, horizon, Instant.ofEpochMilli(wallClock), missing, stillMissing);
        if (ofEarlierVersion(header.id(), policiesVersion)
            && shed.spec().eventIds().isEmpty()
            && lastAction(shed).isBefore(horizon)) {
          // Of a policies' version no longer in force, with nothing left to do: its id is never
          // used again, and nothing suspends a rule of another version.
          rollouts.delete(header.id());
          continue;
        }
        if (!shed.equals(r)) {
          save.accept(shed);
        }
      } catch (RuntimeException e) {
        // One rollout retention cannot read stays as it is; the others, and the tick, go on.
        LOG.error("rollout {}: retention cannot apply to it, left as it is", header.id(), e);
      }
    }
    missing.keepOnly(stillMissing);
  }

  private static final java.util.regex.Pattern VERSION =
      java.util.regex.Pattern.compile("-v(\\d+)(?:-\\d+)?$");

  /**
   * Whether a policy's rollout id ({@code policy-<rule>-v<version>}, {@code -<n>} after it for a
   * successor) is of a policies' version other than the one in force. By the id, not the origin: an
   * abort replayed from a fresh application id records the origin without its version, and taken
   * for an earlier one, the aborted rule's rollout was deleted and the rule acted again.
   */
  static boolean ofEarlierVersion(String id, int policiesVersion) {
    java.util.regex.Matcher m = VERSION.matcher(id);
    return m.find() && !m.group(1).equals(Integer.toString(policiesVersion));
  }

  /** When anything last happened to the rollout: its last action, or when it was created. */
  private static Instant lastAction(Rollout r) {
    Instant last = r.createdAt() == null ? Instant.EPOCH : r.createdAt();
    for (Rollout.Entry e : r.history()) {
      if (e.at() != null && e.at().isAfter(last)) {
        last = e.at();
      }
    }
    for (Rollout.Wave w : r.waves()) {
      if (w.at() != null && w.at().isAfter(last)) {
        last = w.at();
      }
    }
    return last;
  }

  /**
   * The rollout without the events it is done with (every entry done, and the event gone from the
   * events view: closed for {@code fleet.closed-retention}; one the views do not hold at all only
   * once it has been missing for {@link MissingEvents#FOR}), and without waves and actions older
   * than the horizon.
   *
   * @param stillMissing told the events missing from the views and kept for now
   */
  static Rollout shed(
      Rollout r,
      World world,
      Instant horizon,
      Instant now,
      MissingEvents missing,
      Set<String> stillMissing) {
    // Of an event the views forgot, only an entry released and not back holds it, until the ledger
    // no longer counts it either (Ledger.KEEP_AT_MOST after its release): a pending one can never
    // be released without the event's view (its VM vanished before).
    Instant ledgerForgot = now.minus(dev.sebridge.fleet.rollout.Ledger.KEEP_AT_MOST);
    Set<String> busy = new HashSet<>();
    for (RolloutVm v : r.vms().values()) {
      Instant released = v.approvedAt() != null ? v.approvedAt() : v.startedAt();
      if (v.unavailable() && (released == null || !released.isBefore(ledgerForgot))) {
        busy.add(lower(v.eventId()));
      }
    }
    Set<String> over = new HashSet<>();
    for (String e : r.spec().eventIds()) {
      if (!busy.contains(lower(e)) && !world.open(e) && world.eventVms(e).isEmpty()) {
        if (world.viewed(e) || missing.longMissing(lower(e), now)) {
          over.add(lower(e));
        } else {
          stillMissing.add(lower(e));
        }
      }
    }
    // The last wave stays whatever its age: the next one is numbered after it.
    List<Rollout.Wave> waves = new ArrayList<>();
    for (int i = 0; i < r.waves().size(); i++) {
      Rollout.Wave w = r.waves().get(i);
      if (i == r.waves().size() - 1 || w.at() == null || !w.at().isBefore(horizon)) {
        waves.add(w);
      }
    }
    List<Rollout.Entry> history =
        r.history().stream().filter(e -> e.at() == null || !e.at().isBefore(horizon)).toList();
    if (over.isEmpty()
        && waves.size() == r.waves().size()
        && history.size() == r.history().size()) {
      return r;
    }
    Map<String, RolloutVm> vms = new TreeMap<>(r.vms());
    vms.values().removeIf(v -> over.contains(lower(v.eventId())));
    Map<String, Instant> unreported = new TreeMap<>(r.unreported());
    unreported.keySet().removeIf(e -> over.contains(lower(e)));
    List<String> eventIds =
        r.spec().eventIds().stream().filter(e -> !over.contains(lower(e))).toList();
    return new Rollout(
        r.id(),
        r.spec().withEvents(eventIds),
        r.reason(),
        r.requestedBy(),
        r.origin(),
        r.createdAt(),
        r.state(),
        r.halt(),
        r.groupLimits(),
        vms,
        waves,
        history,
        unreported);
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
