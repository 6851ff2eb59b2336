package dev.sebridge.fleet.api;

import dev.sebridge.fleet.model.EventView;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Maintenance campaigns: Azure delivers a host update as hundreds of one-VM events of the same
 * type, source and description, their NotBefore spread over a while. A campaign is such events each
 * first seen within {@link #WINDOW} of the one before, and within {@link #SPAN} of its first (by
 * when the fleet first saw them, not by NotBefore: Azure moves a NotBefore, and an event that
 * started has none, so a campaign grouped by it would change its id and its members as it went;
 * docs/fleet.md, "Maintenance campaigns"; events never seen, none of them, make one campaign of
 * their kind). Its id is a hash of the type, source, description and its first event's first
 * sighting: the same while that event is in the view (open, then {@code fleet.closed-retention}
 * after it closed). {@link #of} is the definition, over a collection of views; the service keeps
 * the same grouping change by change ({@link CampaignIndex}) and reads only the events of the
 * campaigns it shows.
 */
public final class Campaigns {
  /** The most between two events of one campaign, first seen one after the other. */
  public static final Duration WINDOW = Duration.ofHours(1);

  /** The most between the first and the last event of one campaign, first seen. */
  public static final Duration SPAN = Duration.ofHours(24);

  private Campaigns() {}

  /** A campaign: its events, by NotBefore. */
  public record Campaign(
      String id, String type, String source, String description, List<EventView> events) {
    public boolean open() {
      return events.stream().anyMatch(EventView::open);
    }
  }

  /** The campaigns of these events, the soonest first. */
  public static List<Campaign> of(Collection<EventView> events) {
    Map<List<String>, List<EventView>> kinds = new LinkedHashMap<>();
    for (EventView e : events) {
      if (counted(e)) {
        kinds.computeIfAbsent(kind(e), k -> new ArrayList<>()).add(e);
      }
    }
    List<Campaign> out = new ArrayList<>();
    Comparator<EventView> bySighting =
        Comparator.comparing(
                EventView::firstSeenAt, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
            .thenComparing(EventView::eventId, Comparator.nullsLast(Comparator.naturalOrder()));
    for (Map.Entry<List<String>, List<EventView>> kind : kinds.entrySet()) {
      List<EventView> sorted = kind.getValue().stream().sorted(bySighting).toList();
      List<EventView> current = new ArrayList<>();
      for (EventView e : sorted) {
        if (!current.isEmpty()
            && !together(
                current.get(0).firstSeenAt(),
                current.get(current.size() - 1).firstSeenAt(),
                e.firstSeenAt())) {
          out.add(campaign(kind.getKey(), current));
          current = new ArrayList<>();
        }
        current.add(e);
      }
      if (!current.isEmpty()) {
        out.add(campaign(kind.getKey(), current));
      }
    }
    out.sort(
        Comparator.comparing(
                (Campaign c) -> c.events().get(0).firstSeenAt(),
                Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
            .thenComparing(Campaign::id));
    return out;
  }

  /**
   * What rolling a campaign out takes ({@code scheduledEventIds}; the API, the CLI's {@code
   * --campaign} and the page's campaign form alike): its open events with a VM Scheduled and no
   * policy saying never (a dry-run rule says nothing).
   */
  public static List<String> rollable(CampaignView c, FleetViews views) {
    List<String> out = new ArrayList<>();
    for (EventView e : c.openEvents()) {
      if (e.vms().values().stream().anyMatch(v -> "scheduled".equals(v.status()))
          && views
              .decision(e.eventId())
              .map(d -> !"never".equals(d.action()) || d.dryRun())
              .orElse(true)) {
        out.add(e.eventId());
      }
    }
    return out;
  }

  /**
   * What a campaign's rollout form was shown ({@link #rollable}'s events): a hash of their ids. The
   * page sends it back with the form, and a campaign whose events changed since (one came or went,
   * or the campaign's grouping moved) is refused rather than rolled out with what the approver did
   * not review.
   */
  public static String reviewed(List<String> rollable) {
    return hash(
        String.join(
            "\n",
            rollable.stream().map(e -> e.toLowerCase(java.util.Locale.ROOT)).sorted().toList()));
  }

  /**
   * A campaign as an answer shows it ({@link CampaignView}: the views of its open events, kept; its
   * closed ones counted from the index, not read, unless the index has changed them since it listed
   * them); those gone since are left out (empty: none is left).
   */
  public static java.util.Optional<CampaignView> read(CampaignIndex.Members m, FleetViews views) {
    return CampaignView.read(m, views.campaigns(), views);
  }

  /**
   * Whether an event belongs to a campaign at all: one only Azure's central delivery reported (VMs
   * without an agent) has nothing to roll out through agents, and must not change the id of a
   * campaign operators already use.
   */
  static boolean counted(EventView e) {
    return !e.vms().isEmpty();
  }

  /** An event's kind: its type, source and description. */
  static List<String> kind(EventView e) {
    return List.of(
        Objects.requireNonNullElse(e.eventType(), ""),
        Objects.requireNonNullElse(e.eventSource(), ""),
        Objects.requireNonNullElse(e.description(), ""));
  }

  /**
   * Whether an event first seen at {@code next} joins the campaign first seen at {@code first}
   * whose latest was first seen at {@code before}.
   */
  static boolean together(Instant first, Instant before, Instant next) {
    if (before == null || next == null) {
      return before == null && next == null;
    }
    return !next.isAfter(before.plus(WINDOW)) && !next.isAfter(first.plus(SPAN));
  }

  /** The id of the campaign of this kind whose first event was first seen at {@code first}. */
  static String id(List<String> kind, Instant first) {
    return "c-" + hash(String.join("\n", kind) + "\n" + (first == null ? "-" : first.toString()));
  }

  private static Campaign campaign(List<String> kind, List<EventView> events) {
    return new Campaign(
        id(kind, events.get(0).firstSeenAt()),
        kind.get(0),
        kind.get(1),
        kind.get(2),
        List.copyOf(events));
  }

  private static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
