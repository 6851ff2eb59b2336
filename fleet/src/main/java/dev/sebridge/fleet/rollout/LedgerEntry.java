package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
        || Places.samePlace(place, attributes)
        || seenIn.stream().anyMatch(p -> Places.samePlace(place, p))
        || seenIn.contains(ANYWHERE)) {
      return this;
    }
    List<Map<String, String>> more = new java.util.ArrayList<>(seenIn);
    // Past the places it keeps, it counts in every group, as a VM known by name does: never fewer.
    more.add(seenIn.size() < PLACES_KEPT ? place : ANYWHERE);
    return with(completedAt, backAt, placed, notBefore, more);
  }

  /** Unavailable again: Azure says its event is running. */
  LedgerEntry reopened() {
    return with(null, null, placed, notBefore, seenIn);
  }

  /**
   * A placed VM whose agent reported the event: an entry like any reported VM's, down again until
   * its agent says the event is over and is heard from after that (what the rule for a VM without
   * an agent took for back, the agent's word replaces).
   */
  LedgerEntry reported() {
    return with(null, null, false, notBefore, seenIn);
  }

  LedgerEntry completed(Instant at) {
    return with(at, backAt, placed, notBefore, seenIn);
  }

  LedgerEntry back(Instant at) {
    return with(completedAt, at, placed, notBefore, seenIn);
  }

  LedgerEntry withNotBefore(Instant at) {
    return with(completedAt, backAt, placed, at, seenIn);
  }

  /** The same VM, release and place, with what changes as its event runs. */
  private LedgerEntry with(
      Instant completedAt,
      Instant backAt,
      boolean placed,
      Instant notBefore,
      List<Map<String, String>> seenIn) {
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
        seenIn);
  }
}
