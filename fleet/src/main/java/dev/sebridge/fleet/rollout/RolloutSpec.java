package dev.sebridge.fleet.rollout;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a rollout approves: which events, at most how many VMs of a group unavailable at once, how
 * groups are formed, how long a VM must be back before it stops counting, and how long it may take.
 *
 * @param eventIds the events rolled out
 * @param maxUnavailable a count ({@code 2}) or a percentage of the group ({@code 10%}); at least 1
 * @param groupBy VM attributes forming groups: scaleSet, zone, resourceGroup, location (empty: one
 *     group)
 * @param settle how long a VM must have been back (completed, and its agent heard from after)
 *     before it stops counting as unavailable
 * @param timeout how long an approved or started VM may take to be back before the rollout halts
 * @param reportGrace how long an event may list VMs that have not reported it (no agent, agent down
 *     or behind) before the rollout halts naming them; until then the event is held
 */
public record RolloutSpec(
    List<String> eventIds,
    String maxUnavailable,
    List<String> groupBy,
    Duration settle,
    Duration timeout,
    Duration reportGrace) {
  /** How long an event waits for its unreported VMs by default. */
  public static final Duration DEFAULT_REPORT_GRACE = Duration.ofMinutes(2);

  public static final Set<String> GROUP_ATTRIBUTES =
      Set.of("scaleSet", "zone", "resourceGroup", "location");
  private static final Pattern LIMIT = Pattern.compile("([0-9]{1,6})(%?)");

  public RolloutSpec {
    eventIds = eventIds == null ? List.of() : List.copyOf(eventIds);
    groupBy = groupBy == null ? List.of() : List.copyOf(groupBy);
    maxUnavailable = maxUnavailable == null ? "1" : maxUnavailable.trim();
    settle = settle == null ? Duration.ZERO : settle;
    timeout = timeout == null ? Duration.ofMinutes(20) : timeout;
    reportGrace = reportGrace == null ? DEFAULT_REPORT_GRACE : reportGrace;
  }

  /** A spec with the default reportGrace. */
  public RolloutSpec(
      List<String> eventIds,
      String maxUnavailable,
      List<String> groupBy,
      Duration settle,
      Duration timeout) {
    this(eventIds, maxUnavailable, groupBy, settle, timeout, null);
  }

  /** The first problem with this spec, or null. */
  public String problem() {
    if (eventIds.isEmpty()) {
      return "a rollout needs at least one event";
    }
    Matcher m = LIMIT.matcher(maxUnavailable);
    if (!m.matches() || Integer.parseInt(m.group(1)) < 1) {
      return "maxUnavailable must be a count (2) or a percentage (10%) of at least 1";
    }
    if (!m.group(2).isEmpty() && Integer.parseInt(m.group(1)) > 100) {
      return "maxUnavailable is a percentage of at most 100%";
    }
    for (String g : groupBy) {
      if (!GROUP_ATTRIBUTES.contains(g)) {
        return "groupBy takes " + String.join(", ", GROUP_ATTRIBUTES.stream().sorted().toList());
      }
    }
    if (settle.isNegative() || settle.compareTo(Duration.ofHours(24)) > 0) {
      return "settle is between 0 and 24h";
    }
    if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofDays(7)) > 0) {
      return "timeout is between 1s and 7d";
    }
    if (reportGrace.isNegative() || reportGrace.compareTo(Duration.ofHours(24)) > 0) {
      return "reportGrace is between 0 and 24h";
    }
    return null;
  }

  /** The limit for a group of {@code size} VMs: the count, or the percentage rounded down; >= 1. */
  public int limit(int size) {
    Matcher m = LIMIT.matcher(maxUnavailable);
    if (!m.matches()) {
      throw new IllegalStateException(problem());
    }
    int n = Integer.parseInt(m.group(1));
    return Math.max(1, m.group(2).isEmpty() ? n : (int) ((long) size * n / 100));
  }

  /** The same spec with these events. */
  public RolloutSpec withEvents(List<String> ids) {
    return new RolloutSpec(ids, maxUnavailable, groupBy, settle, timeout, reportGrace);
  }
}
