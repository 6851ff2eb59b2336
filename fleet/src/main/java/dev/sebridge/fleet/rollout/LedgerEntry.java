package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One VM released by one event, in the fleet-wide {@link Ledger}: unavailable from its release
 * until it is back (its event completed, its agent heard from after that, and a rollout's settle
 * time passed).
 *
 * @param vmId the VM, or null for a VM the event lists by name that has not reported it (no agent,
 *     its agent down or behind): such a VM is counted in the group {@link Ledger#UNKNOWN_GROUP}
 * @param name the VM's name as the event lists it
 * @param eventId the event that released it
 * @param attributes the VM's zone, scaleSet, resourceGroup and location when it was released
 * @param origin who released it: {@code rollout:<id>}, {@code api}, {@code policy:<rule>@v<n>}, or
 *     {@link Ledger#OBSERVED} (NotBefore passed, or an approval from outside the fleet service)
 * @param releasedAt when
 * @param completedAt when its event completed for it, or null
 * @param backAt when its agent was first heard from after the completion (for a VM without an
 *     agent: when the fleet saw the event closed), or null
 * @param placed true for a VM no agent reported the event for that Azure's inventory placed ({@link
 *     ListedVms.Listed#placed}): counted in its own group, and taken for back as a VM known by name
 *     is, until its agent reports the event
 * @param notBefore the latest NotBefore the fleet saw for its event, or null: a view's NotBefore is
 *     empty once the event started, when a VM without an agent must still count from it
 * @param seenIn the other places (zone, scaleSet, resourceGroup, location) a step's views or
 *     Azure's inventory showed the VM in while it counted (moved while down), at most {@link
 *     #PLACES_KEPT}: it counts in those groups too, whatever later views show (a failover to views
 *     from before the move would count it where it was released only)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LedgerEntry(
    String vmId,
    String name,
    String eventId,
    Map<String, String> attributes,
    String origin,
    Instant releasedAt,
    Instant completedAt,
    Instant backAt,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean placed,
    Instant notBefore,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Map<String, String>> seenIn) {

  /**
   * The most other places an entry keeps (a VM moved more often while down is rare); one more
   * counts it in every group ({@link #ANYWHERE}).
   */
  public static final int PLACES_KEPT = 8;

  /** The place of a VM seen in more than {@link #PLACES_KEPT}: counted in every group. */
  static final Map<String, String> ANYWHERE = Map.of("anywhere", "true");

  public LedgerEntry {
    attributes =
        attributes == null
            ? Map.of()
            : Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    seenIn =
        seenIn == null
            ? List.of()
            : seenIn.stream()
                .map(m -> (Map<String, String>) Collections.unmodifiableSortedMap(new TreeMap<>(m)))
                .toList();
  }

  /** An entry seen in no other place. */
  public LedgerEntry(
      String vmId,
      String name,
      String eventId,
      Map<String, String> attributes,
      String origin,
      Instant releasedAt,
      Instant completedAt,
      Instant backAt,
      boolean placed,
      Instant notBefore) {
    this(
        vmId,
        name,
        eventId,
        attributes,
        origin,
        releasedAt,
        completedAt,
        backAt,
        placed,
        notBefore,
        List.of());
  }

  /** An entry of a VM that reported its event, or is known by name only. */
  public LedgerEntry(
      String vmId,
      String name,
      String eventId,
      Map<String, String> attributes,
      String origin,
      Instant releasedAt,
      Instant completedAt,
      Instant backAt) {
    this(vmId, name, eventId, attributes, origin, releasedAt, completedAt, backAt, false, null);
  }

  /** The VM's key in the ledger: its vmId, or {@code name:<name>} while it is unknown. */
  public static String vmKey(String vmId, String name) {
    return vmId != null ? vmId : dev.sebridge.fleet.model.Acknowledgement.vmKey(name);
  }

  /** The entry's key in the ledger's store: the VM and the event. */
  public static String key(String vmKey, String eventId) {
    return vmKey + "|" + dev.sebridge.fleet.model.EventIds.lower(eventId);
  }

  @JsonIgnore
  public String vmKey() {
    return vmKey(vmId, name);
  }

  @JsonIgnore
  public String key() {
    return key(vmKey(), eventId);
  }

  /**
   * Whether this is an entry of the event for a VM known by one of these vmIds or names (lower
   * case, {@link ListedVms#idsAndNames}), under any of its keys: its vmId, its name, or its vmId
   * taken for a name while the fleet had no view of it.
   */
  boolean of(String eventId, java.util.Set<String> idsAndNames) {
    return this.eventId.equalsIgnoreCase(eventId)
        && ((vmId != null && idsAndNames.contains(vmId.toLowerCase(java.util.Locale.ROOT)))
            || (name != null && idsAndNames.contains(name.toLowerCase(java.util.Locale.ROOT))));
  }

  /** Still unavailable for a rollout that waits {@code settle} after a VM is back. */
  public boolean unavailable(Duration settle, Instant now) {
    return backAt == null || now.isBefore(backAt.plus(settle));
  }

  /** Its group under a rollout's groupBy ({@link ListedVms#group}). */
  public String group(List<String> groupBy) {
    return ListedVms.group(vmId, attributes, groupBy);
  }

  /** Its groups under a rollout's groupBy: where it was released, and each place seen since. */
  public java.util.Set<String> groups(List<String> groupBy) {
    if (seenIn.isEmpty()) {
      return java.util.Set.of(group(groupBy));
    }
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    out.add(group(groupBy));
    seenIn.forEach(
        m ->
            out.add(
                m.equals(ANYWHERE) && !groupBy.isEmpty()
                    ? Ledger.UNKNOWN_GROUP
                    : ListedVms.group(vmId, m, groupBy)));
    return out;
  }

  /**
   * This entry seen in this place (its attributes as a step's views or the inventory give them):
   * kept when it is another than those it has, and it keeps fewer than {@link #PLACES_KEPT}.
   */
  LedgerEntry seen(Map<String, String> place) {
    if (vmId == null
        || place.isEmpty()
        || ListedVms.samePlace(place, attributes)
        || seenIn.stream().anyMatch(p -> ListedVms.samePlace(place, p))
        || seenIn.contains(ANYWHERE)) {
      return this;
    }
    List<Map<String, String>> more = new java.util.ArrayList<>(seenIn);
    // Past the places it keeps, it counts in every group, as a VM known by name does: never fewer.
    more.add(seenIn.size() < PLACES_KEPT ? place : ANYWHERE);
    return new LedgerEntry(
        vmId,
        name,
        eventId,
        attributes,
        origin,
        releasedAt,
        completedAt,
        backAt,
        placed,
        notBefore,
        more);
  }

  /** This entry after what the views show now. */
  LedgerEntry next(World w, Instant now) {
    LedgerEntry e = this;
    if (e.vmId() == null || e.placed()) {
      // Its event's NotBefore, kept: the view's is empty once the event started.
      Instant seen = w.notBefore(e.eventId()).orElse(null);
      if (seen != null && !seen.equals(e.notBefore())) {
        e = e.withNotBefore(seen);
      }
    }
    if (e.placed() && w.known(e.vmId())) {
      VmEventState s = w.eventVms(e.eventId()).get(e.vmId());
      if (s != null && !s.vanished()) {
        // Its agent reported the event since: heard from, as any VM that reported it is.
        e = e.reported();
      }
    }
    if (e.placed() && ObservedReleases.gone(w.eventType(e.eventId()))) {
      boolean listed = w.inventoryLists(e.vmId());
      if (e.backAt() == null && !listed) {
        // A Terminate or a Preempt deleted it: the inventory no longer lists it, and it is out of
        // its group (a Spot VM deallocated is still listed, and counts as any VM without an
        // agent).
        return (e.completedAt() == null ? e.completed(now) : e).back(now);
      }
      if (e.backAt() != null
          && listed
          && w.open(e.eventId())
          && !ListedVms.seenClosed(e.eventId(), w)
          && now.isBefore(e.countsFrom().plus(Ledger.UNKNOWN_AT_MOST))) {
        // Listed again while its event is open and within its hour (a refresh that missed it
        // once): not deleted, and the event may not have run; down again, as the rule below has
        // it for a VM without an agent (which then keeps it down: no step reopens and closes it).
        e = e.reopened();
      }
    }
    if (e.vmId() == null || e.placed()) {
      // Azure says the event is running: it counts, whatever the views or the clock say, and
      // again if it was taken for back before (an approved or acknowledged event may start hours
      // later, after the host's other tenants; a view closed by an agent's inferred "canceled").
      // (An agent's "started" is not enough: a VM deleted mid-event reports it for good.)
      if (w.startedByAzure(e.eventId())) {
        return e.backAt() == null ? e : e.reopened();
      }
      // No agent to hear from: back a while after the fleet sees the event closed, and at the
      // latest an hour after the later of its release and its event's NotBefore, the last one seen
      // (Azure starts an event at NotBefore whatever became of an approval, hours after it may be;
      // an event can stay open for good when a VM it lists is deleted mid-event, and must not hold
      // a group forever).
      if (e.backAt() != null) {
        return e;
      }
      if (ListedVms.seenClosed(e.eventId(), w)) {
        return e.completed(now).back(now.plus(Ledger.UNKNOWN_BACK_AFTER));
      }
      return now.isBefore(e.countsFrom().plus(Ledger.UNKNOWN_AT_MOST))
          ? e
          : e.completed(now).back(now);
    }
    if (ObservedReleases.gone(w.eventType(e.eventId()))) {
      boolean inSize = w.inGroupSize(e.vmId());
      if (e.backAt() == null && !inSize) {
        // A Terminate or a Preempt took it out of the fleet (deleted, or a Spot VM deallocated):
        // out of its group's size now (its agent silent, or the inventory no longer lists it), it
        // counts there no more, as a VM gone for any other reason does not. (Never heard from
        // again, it held its group's room for the ledger's 30 days.)
        return (e.completedAt() == null ? e.completed(now) : e).back(now);
      }
      VmEventState own = w.eventVms(e.eventId()).get(e.vmId());
      if (e.backAt() != null && inSize && w.open(e.eventId()) && (own == null || !own.closed())) {
        // In its group's size again while its part of the event is open (the inventory missed it
        // once, its agent was slow for a while): the event has not run its course for it, and it
        // counts again. (Its part closed, it is back as any VM: a Spot VM restarted after its
        // eviction while the event is open for others.)
        e = e.reopened();
      }
    }
    VmEventState s = w.eventVms(e.eventId()).get(e.vmId());
    // "canceled" (or inferred as canceled) for a VM of a released event is not trusted to mean
    // no impact: an agent that restarted during an early reboot guesses canceled. Like a
    // completion, it needs the agent heard from afterwards.
    if (e.completedAt() == null) {
      if (s != null && s.closed() && !s.vanished()) {
        // (vanished says nothing of the VM: it counts until heard from, or KEEP_AT_MOST)
        e = e.completed(s.since() == null ? now : s.since());
      } else if (s == null && !w.open(e.eventId()) && e.overWithoutItsPart(w, now)) {
        e = e.completed(now); // the event is closed, or gone from the view
      }
    }
    if (e.completedAt() != null && e.backAt() == null) {
      Optional<Instant> heard = w.lastHeartbeat(e.vmId());
      // A vmId the inventory does not know (any more) is never taken for back.
      if (heard.isPresent() && heard.get().isAfter(e.completedAt()) && w.known(e.vmId())) {
        e = e.back(now);
      }
    }
    return e;
  }

  /**
   * Whether the views say the entry's event is over for its VM, which has no part in the event in
   * them. An entry made from the VM's part (it has a name: its report, or its by-name entry merged
   * when it reported) finds views without it behind, whatever they show of the others: an event's
   * view never drops a VM's part (only the whole view goes, by retention). Views the rollouts task
   * moved to may stop between another VM's part closing the event and this VM's first report
   * opening it again: taken for over then, the VM was back at its next heartbeat, before the event
   * ran for it. Such an entry is over without its part only by the hour rule. An entry by vmId
   * without a name (an operator named the VM while the views did not show the event) has never seen
   * its part: {@link #overByTheViews}.
   */
  boolean overWithoutItsPart(World w, Instant now) {
    return name == null
        ? overByTheViews(w, now)
        : !now.isBefore(countsFrom().plus(Ledger.UNKNOWN_AT_MOST));
  }

  /**
   * Whether the views say the entry's event is over, for a VM that has no part in it: they hold it
   * closed, or they do not hold it and {@link Ledger#UNKNOWN_AT_MOST} passed since the later of its
   * release and its NotBefore (forgotten after it closed). Within that, an event the views do not
   * hold is one they have not caught up with (the rollouts task moved to an instance whose global
   * views are behind): taken for over, its VMs were back at their next heartbeat, before the event
   * ran (held for the host's other tenants, or its NotBefore), and their groups' room released to
   * others.
   */
  boolean overByTheViews(World w, Instant now) {
    return w.viewed(eventId) || !now.isBefore(countsFrom().plus(Ledger.UNKNOWN_AT_MOST));
  }

  /**
   * Where a VM without an agent's hour starts: the later of its release and its event's NotBefore,
   * the last seen.
   */
  private Instant countsFrom() {
    return notBefore != null && notBefore.isAfter(releasedAt) ? notBefore : releasedAt;
  }

  /** Unavailable again: Azure says its event is running. */
  LedgerEntry reopened() {
    return new LedgerEntry(
        vmId, name, eventId, attributes, origin, releasedAt, null, null, placed, notBefore, seenIn);
  }

  /**
   * A placed VM whose agent reported the event: an entry like any reported VM's, down again until
   * its agent says the event is over and is heard from after that (what the rule for a VM without
   * an agent took for back, the agent's word replaces).
   */
  LedgerEntry reported() {
    return new LedgerEntry(
        vmId, name, eventId, attributes, origin, releasedAt, null, null, false, notBefore, seenIn);
  }

  LedgerEntry completed(Instant at) {
    return new LedgerEntry(
        vmId, name, eventId, attributes, origin, releasedAt, at, backAt, placed, notBefore, seenIn);
  }

  LedgerEntry back(Instant at) {
    return new LedgerEntry(
        vmId,
        name,
        eventId,
        attributes,
        origin,
        releasedAt,
        completedAt,
        at,
        placed,
        notBefore,
        seenIn);
  }

  LedgerEntry withNotBefore(Instant at) {
    return new LedgerEntry(
        vmId,
        name,
        eventId,
        attributes,
        origin,
        releasedAt,
        completedAt,
        backAt,
        placed,
        at,
        seenIn);
  }
}
