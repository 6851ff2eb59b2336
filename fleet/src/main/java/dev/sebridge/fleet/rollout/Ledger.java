package dev.sebridge.fleet.rollout;

import dev.sebridge.fleet.model.VmEventState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The fleet-wide ledger of unavailable VMs: the one place the safety rule lives. Every release path
 * (a rollout's wave, a policy's approval, an operator's approval through the API or the page) asks
 * {@link #refusal} before it approves an event and records the release with {@link #release}; what
 * the fleet did not release itself (NotBefore passed, an approval from outside the fleet service)
 * is picked up from the events view by {@link #observe}, and so is an approval whose commands went
 * out while the step that sent them was lost (the requests view shows it).
 *
 * <p>IMDS releases an approved event for every VM in its {@code Resources}, so a release enters
 * every VM the event lists: those that reported it, by vmId and group, and those that did not (no
 * agent, agent down or behind), by name, in the group {@link #UNKNOWN_GROUP} (with no groupBy, in
 * {@code all} like every VM), unless Azure's inventory places them ({@link World#placed}: the one
 * VM of that name), which puts them in their own groups. A VM is unavailable from its release until
 * its event completed, its agent was heard from after that, and the checking rollout's settle time
 * passed; a VM without an agent counts until {@link #UNKNOWN_BACK_AFTER} after the fleet sees its
 * event closed (while nothing says the event runs, at most {@link #UNKNOWN_AT_MOST} after the later
 * of its release and its event's last NotBefore seen, {@link LedgerEntry#notBefore}), and in every
 * group of every rollout (it could be in any of them) unless placed. A VM reported canceled after
 * its event was released counts like a completed one (an agent restarted by an early reboot guesses
 * canceled).
 *
 * <p>The limits are those of every active rollout ({@link #constrain}): a release must keep each of
 * their groups within its limit, whichever path asks and whichever rollout the event belongs to;
 * while any rollout is active, an event that lists VMs which have not reported it and the inventory
 * does not place is not released at all (their groups are unknown). A placed VM is taken for back
 * as a VM known by name is (its agent, if any, did not report the event), until its agent reports
 * the event. An event an active rollout still holds ({@link #holder}) is that rollout's to release.
 *
 * <p>A VM the fleet closed as {@code vanished} (nothing heard from it for {@code
 * fleet.vm-retention}) is known by name only again ({@link ListedVms}): an event listing it is not
 * released while a rollout is active, and once released it counts until it is heard from, at most
 * {@link #KEEP_AT_MOST}: silence is never taken for "back".
 *
 * <p>Retention: an entry is dropped {@link #KEEP_AFTER_BACK} after its VM is back (the longest
 * settle a rollout may have) once its event is over, and in any case {@link #KEEP_AT_MOST} after
 * its release.
 *
 * <p>Not thread-safe: the rollout processor builds one per step from its store and writes back
 * {@link #touched}.
 */
public final class Ledger {
  /** The group of VMs an event lists that have not reported it, under any groupBy. */
  public static final String UNKNOWN_GROUP = "unknown";

  /** The origin of a release the fleet saw but did not make. */
  public static final String OBSERVED = "observed";

  /** How long an entry stays once its VM is back: the longest settle a rollout may have. */
  public static final Duration KEEP_AFTER_BACK = Duration.ofHours(24);

  /**
   * How long a VM without an agent (counted by name) still counts after the fleet sees its event
   * closed: nothing tells the fleet when it is up again.
   */
  public static final Duration UNKNOWN_BACK_AFTER = Duration.ofMinutes(10);

  /** How long a VM without an agent counts at most after its release, its event open or not. */
  public static final Duration UNKNOWN_AT_MOST = Duration.ofHours(1);

  /** How long an entry stays at most, back or not. */
  public static final Duration KEEP_AT_MOST = Duration.ofDays(30);

  private final Map<String, LedgerEntry> entries;
  private final Set<String> touched = new TreeSet<>();
  private final LedgerLimits limits;
  private final EnteredByVmId byVmId;

  public Ledger(Map<String, LedgerEntry> entries) {
    this.entries = new TreeMap<>(entries);
    this.limits = new LedgerLimits(this.entries.values());
    this.byVmId = new EnteredByVmId(this.entries.values());
  }

  public static Ledger empty() {
    return new Ledger(Map.of());
  }

  public Map<String, LedgerEntry> entries() {
    return Collections.unmodifiableMap(entries);
  }

  /** Keys written or removed since this ledger was built: what its owner persists. */
  public Set<String> touched() {
    return Collections.unmodifiableSet(touched);
  }

  /** A copy with the same entries and no constraints (a new step's starting point). */
  public Ledger copy() {
    return new Ledger(entries);
  }

  /** Every release must keep this rollout's groups within its limits while it is active. */
  public void constrain(Rollout r) {
    limits.constrain(r);
  }

  /**
   * The rollout with the limits this ledger's checks computed for its groups recorded (each the
   * smaller of the two; {@link Rollout#recording}): every group a check met, the groups it has no
   * VM in too, whose limits bind every release all the same. Its owner saves it with the step, so
   * that a failover to views behind these does not take a larger limit.
   */
  public Rollout recorded(Rollout r) {
    return r.recording(limits.met(r.id()));
  }

  /** Whether any active rollout's limits bind releases now. */
  public boolean constrained() {
    return limits.constrained();
  }

  /** The active rollout that holds the event back, if one does ({@link Rollout#holds}). */
  public Optional<Rollout> holder(String eventId) {
    return limits.holder(eventId);
  }

  /**
   * Why releasing this event now would put a group of an active rollout over its limit, or empty
   * when it fits every one of them.
   */
  public Optional<String> refusal(String eventId, World w, Instant now) {
    return limits.check(eventId, w, now, true);
  }

  /** Whether releasing this event now keeps every active rollout's groups within their limits. */
  public boolean fits(String eventId, World w, Instant now) {
    return limits.check(eventId, w, now, false).isEmpty();
  }

  /**
   * The same, for a release that also makes these VMs unavailable, which the views do not list in
   * the event (a rollout's VMs of it acknowledged through the Maintenance API: Azure releases the
   * event for all it lists, those included).
   */
  public boolean fits(String eventId, List<ListedVms.Listed> also, World w, Instant now) {
    return limits.check(eventId, also, w, now, false).isEmpty();
  }

  /**
   * Whether rollout {@code r}'s group has no room now for one more VM that is not down already: an
   * event with such a VM there is refused by {@link #refusal} whatever else it lists. A planner
   * asks this first, in constant time, of the thousands of events a large rollout holds.
   */
  public boolean noRoom(Rollout r, String group, String vmKey, World w, Instant now) {
    return limits.noRoom(r, group, vmKey, w, now);
  }

  /** Records that an event was released now: every VM it lists becomes unavailable. */
  public void release(String eventId, World w, String origin, Instant now) {
    release(eventId, ListedVms.of(eventId, w), w, origin, now);
  }

  /**
   * Records that an event was released now for these VMs (those it lists, or those a request named
   * when this instance's view does not show the event yet).
   */
  public void release(
      String eventId, List<ListedVms.Listed> listed, World w, String origin, Instant now) {
    for (ListedVms.Listed l : listed) {
      String key = LedgerEntry.key(l.vmKey(), eventId);
      LedgerEntry entered = entries.get(key);
      if (entered != null) {
        if (entered.name() == null && l.vmId() != null && l.name() != null) {
          VmEventState part = w.eventVms(eventId).get(l.vmId());
          named(entered, l.name(), part != null && !part.closed());
        }
        continue;
      }
      if (l.vmId() == null && l.name() != null && entries.containsKey(byVmId.keyOf(key))) {
        // The VM has this release entered by its vmId already (its report no longer counts: the
        // inventory dropped it, a scale-in deleted it): the same VM and release, counted there
        // until it is back, not again by name in every group.
        continue;
      }
      // A VM that reported after its release was recorded by name: the same VM and release,
      // now with its vmId and group.
      LedgerEntry byName =
          l.vmId() == null || l.name() == null
              ? null
              : entries.get(LedgerEntry.key(LedgerEntry.vmKey(null, l.name()), eventId));
      if (byName == null && l.vmId() != null) {
        // An operator's approval named the VM while this instance had no view of it: entered by
        // its vmId as its name (OperatorApproval), the same VM and release.
        byName = entries.get(LedgerEntry.key(LedgerEntry.vmKey(null, l.vmId()), eventId));
      }
      if (byName != null) {
        remove(byName.key());
      }
      LedgerEntry e =
          new LedgerEntry(
              l.vmId(),
              l.name(),
              eventId,
              ListedVms.attributes(l.vmId(), w),
              byName == null ? origin : byName.origin(),
              byName == null ? now : byName.releasedAt(),
              null,
              null,
              l.placed(),
              // (the view's is empty once the event started: the by-name entry kept it)
              w.notBefore(eventId).orElse(byName == null ? null : byName.notBefore()));
      if (e.vmId() != null) {
        // Where the inventory puts it too (DownCounts counts it there now): committed with it.
        e = Places.seenNow(e, w);
      }
      entries.put(e.key(), e);
      touched.add(e.key());
      limits.released(e, now);
      byVmId.entered(e);
    }
  }

  /**
   * Records that a request released an event now for these VMs, counting each from now even where
   * an earlier release of the event was taken for over and its VM for back ({@link
   * #UNKNOWN_AT_MOST} without the views showing the event, then a heartbeat): an operator's
   * approval of an event this instance's views still do not show, approved again (the first one
   * refused by its agents, or lost), whose commands claim these VMs as counted.
   */
  public void releaseAgain(
      String eventId, List<ListedVms.Listed> listed, World w, String origin, Instant now) {
    // Every entry of the event that is the same VM, under any of its keys (its vmId; its name; its
    // vmId entered as its name while this instance had no view of it), is entered anew from now:
    // release() merges or skips those it finds, and one back, or released over an hour ago (taken
    // for over at the next step while the views do not show the event), would stand for the VM
    // going down now.
    Set<String> same = ListedVms.idsAndNames(listed);
    List<LedgerEntry> earlier = entries.values().stream().filter(e -> e.of(eventId, same)).toList();
    earlier.forEach(e -> remove(e.key()));
    release(eventId, listed, w, origin, now);
    Places.keep(earlier, eventId, entries.values()).forEach(this::put);
  }

  /**
   * An entry by vmId made without a name (an operator's request named the VM while this view did
   * not show its event) learns it from the event's view: the same VM's entry by name, made since,
   * is dropped (it counted in every group), and none is made again. Taken for over while the views
   * did not show the event (an hour), it is down again while its VM's part is open: dropped, the
   * entry by name was what still counted it.
   */
  private void named(LedgerEntry entered, String name, boolean partOpen) {
    boolean over = entered.completedAt() != null || entered.backAt() != null;
    LedgerEntry byName =
        entries.get(LedgerEntry.key(LedgerEntry.vmKey(null, name), entered.eventId()));
    if (byName != null) {
      remove(byName.key());
    }
    LedgerEntry e =
        new LedgerEntry(
            entered.vmId(),
            name,
            entered.eventId(),
            entered.attributes(),
            entered.origin(),
            entered.releasedAt(),
            over && partOpen ? null : entered.completedAt(),
            over && partOpen ? null : entered.backAt(),
            entered.placed(),
            entered.notBefore(),
            entered.seenIn());
    put(e);
    byVmId.entered(e);
  }

  /**
   * Picks up releases the fleet did not make ({@link ObservedReleases}: an event approved or
   * started for any VM it lists is released for all of them), VMs that reported an event after its
   * release, and moves every entry on: completed, back, or dropped by the retention rule.
   */
  public void observe(World w, Instant now) {
    ObservedReleases.of(entries.values(), w, now)
        .forEach((eventId, origin) -> release(eventId, w, origin, now));
    for (String key : new ArrayList<>(entries.keySet())) {
      LedgerEntry e = entries.get(key);
      LedgerEntry next = EntryProgress.next(e, w, now);
      if (next.vmId() != null && next.unavailable(KEEP_AFTER_BACK, now)) {
        // Where these views and the inventory put it now, kept: a later step on views from before
        // a move (a failover) still counts it where this one saw it.
        next = Places.seenNow(next, w);
      }
      // Kept while its event is open (dropped, it would be entered again as a new release).
      if ((next.backAt() != null
              && now.isAfter(next.backAt().plus(KEEP_AFTER_BACK))
              && !w.open(next.eventId()))
          || now.isAfter(next.releasedAt().plus(KEEP_AT_MOST))) {
        remove(key);
      } else if (!next.equals(e)) {
        put(next);
      }
    }
  }

  /** VMs unavailable for a rollout that waits {@code settle} after a VM is back, by vmKey. */
  public Set<String> unavailable(Duration settle, Instant now) {
    Set<String> out = new TreeSet<>();
    entries.values().stream()
        .filter(e -> e.unavailable(settle, now))
        .forEach(e -> out.add(e.vmKey()));
    return out;
  }

  private void put(LedgerEntry e) {
    entries.put(e.key(), e);
    touched.add(e.key());
    limits.changed();
  }

  private void remove(String key) {
    entries.remove(key);
    touched.add(key);
    limits.changed();
  }

  /** Entries by key, for the keys given (null where removed). */
  public Map<String, LedgerEntry> changes(Collection<String> keys) {
    Map<String, LedgerEntry> out = new TreeMap<>();
    keys.forEach(k -> out.put(k, entries.get(k)));
    return out;
  }
}
