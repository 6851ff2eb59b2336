package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Locale;

/**
 * One entry of a rollout stored apart from its header ({@link RolloutParts}): a VM's part in one of
 * its events ({@code vm}), one of its events ({@code event}), or its limit for a group ({@code
 * limit}); exactly one is set. Keys: {@code <rolloutId>|v|<vmId>|<eventId>}, {@code
 * <rolloutId>|e|<eventId>} (event ids lower case) and {@code <rolloutId>|l|<group>}, so one
 * rollout's entries are one key range ({@link #from}, {@link #to}).
 *
 * @param vm a VM's entry, as in {@link Rollout#vms()}
 * @param event one of the rollout's events
 * @param limit its limit for one group, as in {@link Rollout#groupLimits()}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RolloutPart(RolloutVm vm, Event event, Limit limit) {

  /**
   * One of a rollout's events.
   *
   * @param eventId as the spec has it
   * @param order its place in the spec's event ids, or null when it is not one of them (a held
   *     event's report wait outliving it)
   * @param unreportedSince since when it waits for listed VMs to report it, or null
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Event(String eventId, Integer order, Instant unreportedSince) {}

  /**
   * A rollout's limit for one group: the most of its VMs that may be unavailable at once.
   *
   * @param group as {@link Rollout#groupLimits()} names it
   * @param limit the number
   */
  public record Limit(String group, int limit) {}

  public static RolloutPart of(RolloutVm vm) {
    return new RolloutPart(vm, null, null);
  }

  public static RolloutPart of(Event event) {
    return new RolloutPart(null, event, null);
  }

  public static RolloutPart of(Limit limit) {
    return new RolloutPart(null, null, limit);
  }

  public static String vmKey(String rolloutId, RolloutVm vm) {
    return vmsFrom(rolloutId) + vm.key();
  }

  public static String eventKey(String rolloutId, String eventId) {
    return eventsFrom(rolloutId) + eventId.toLowerCase(Locale.ROOT);
  }

  public static String limitKey(String rolloutId, String group) {
    return rolloutId + "|l|" + group;
  }

  /** The first key of a rollout's events' entries ({@link #upTo}: the last). */
  public static String eventsFrom(String rolloutId) {
    return rolloutId + "|e|";
  }

  /** The first key of a rollout's VMs' entries ({@link #upTo}: the last). */
  public static String vmsFrom(String rolloutId) {
    return rolloutId + "|v|";
  }

  /** The last key of the entries whose keys begin with {@code from}. */
  public static String upTo(String from) {
    return from + "\uffff";
  }

  /** The first key of a rollout's entries. */
  public static String from(String rolloutId) {
    return rolloutId + "|";
  }

  /** The last key of a rollout's entries. */
  public static String to(String rolloutId) {
    return upTo(from(rolloutId));
  }

  /**
   * Whether a rollout of this id is stored in parts: its entries' keys must tell it apart from
   * every other rollout's. Rollout ids are UUIDs or {@code policy-<rule>-v<version>}, and rule
   * names are letters, digits, '-' and '_'; a rollout whose id has a '|' (none is made) is stored
   * whole.
   */
  public static boolean splittable(String rolloutId) {
    return rolloutId != null && !rolloutId.isEmpty() && rolloutId.indexOf('|') < 0;
  }
}
