package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.CampaignIndex;
import dev.sebridge.fleet.api.CampaignView;
import dev.sebridge.fleet.api.Campaigns;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.RolloutSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page's open maintenance as campaigns ({@link Campaigns}, grouped as the API groups them): a
 * campaign of a few events shows them inline; a larger one is one row (its VMs by status, zone and
 * scale set) whose events open in the panel, {@link #PAGE} at a time. The list shows {@link #SHOWN}
 * campaigns a page, the soonest first, narrowed by a {@link CampaignFilter}: it stays the same size
 * however many events are open.
 */
final class CampaignRows {
  /** A campaign with at most this many open events shows them inline. */
  static final int INLINE = 10;

  /** The most campaigns the list shows. */
  static final int SHOWN = 25;

  /** Events on one page of a campaign in the panel. */
  static final int PAGE = 50;

  private final FleetViews views;
  private final PageModel model;

  CampaignRows(FleetViews views, PageModel model) {
    this.views = views;
    this.model = model;
  }

  /**
   * The list: campaigns with an open event that the filter takes, the soonest NotBefore first, its
   * page of them ({@link #SHOWN}; past the last page, the last).
   */
  Map<String, Object> list(CampaignFilter filter) {
    // The order from the index; only the shown campaigns' events are read.
    List<CampaignIndex.Members> open =
        views.campaigns().campaigns().stream()
            .filter(CampaignIndex.Members::open)
            .filter(filter::matches)
            .sorted(
                Comparator.comparing(CampaignIndex.Members::soonest)
                    .thenComparing(CampaignIndex.Members::id))
            .toList();
    SectionPage.Window w = new SectionPage(filter.page()).over(open.size(), SHOWN);
    List<CampaignView> shown =
        open.subList(w.from(), w.to()).stream()
            .map(c -> Campaigns.read(c, views))
            .flatMap(java.util.Optional::stream)
            .filter(CampaignView::isOpen) // (closed since the index listed it)
            .toList();
    // VM views only for the events drawn inline; the rows' counts take silence from the tallies,
    // and their closed events from the index (no closed event's view is read).
    List<EventView> inline = new ArrayList<>();
    shown.forEach(c -> inline.addAll(inline(c)));
    Map<String, VmView> vms = views.vmsOf(inline);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (CampaignView c : shown) {
      rows.add(row(c, vms));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("campaigns", rows);
    m.put("empty", rows.isEmpty());
    m.put("narrowed", filter.narrowed());
    m.put("page", w.page());
    m.put("pager", w.pager("events", "campaigns"));
    return m;
  }

  /** The open events a campaign's row draws itself (at most {@link #INLINE}), or none. */
  private static List<EventView> inline(CampaignView c) {
    List<EventView> open = c.openEvents();
    return open.size() <= INLINE ? open.stream().sorted(BY_NOT_BEFORE).toList() : List.of();
  }

  private Map<String, Object> row(CampaignView c, Map<String, VmView> vms) {
    int open = c.open().size();
    Map<String, Object> m = summary(c, views::silent);
    m.put("headingId", "cp-" + c.id());
    if (open <= INLINE) {
      m.put("inline", inline(c).stream().map(e -> model.event(e, vms)).toList());
    }
    // Its events open in the panel whenever the list does not draw them all (closed ones too).
    m.put("browse", open > INLINE || open < c.eventCount());
    return m;
  }

  /**
   * A campaign's kind and its VMs by status, zone and scale set, from its open events' views, its
   * closed events' tallies, and whether each VM's agent is silent ({@code silent}: no VM view
   * read).
   */
  private static Map<String, Object> summary(
      CampaignView c, java.util.function.Predicate<String> silent) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("campaignId", c.id());
    m.put("eventType", c.type());
    m.put("eventSource", c.source());
    m.put("description", c.description());
    m.put("eventCount", c.eventCount());
    m.put("single", c.eventCount() == 1);
    m.put("openCount", c.open().size());
    Instant soonest = c.soonest();
    boolean known = !soonest.equals(Instant.MAX) && !soonest.equals(Instant.MIN);
    m.put("notBefore", known ? soonest.toString() : null);
    m.put("started", soonest.equals(Instant.MIN));
    CampaignView.Counts counts =
        c.counts(p -> p.shown(!p.closed() && silent.test(p.vmId())), "none");
    m.put("vmCount", counts.vms());
    m.put("bar", PageModel.bar(counts.byStatus(), counts.parts()));
    m.put("zones", PageModel.breakdown(counts.byZone()));
    m.put("scaleSets", PageModel.breakdown(counts.byScaleSet()));
    return m;
  }

  /**
   * One page of a campaign's events for the panel (open ones first, then by NotBefore), and how
   * many of them rolling it out takes ({@link Campaigns#rollable}).
   */
  Map<String, Object> page(String campaignId, int page, boolean approver) {
    CampaignView c =
        views
            .campaigns()
            .find(campaignId)
            .flatMap(m -> Campaigns.read(m, views))
            .orElseThrow(
                () ->
                    new dev.sebridge.fleet.api.ApiException(
                        404, "no such campaign: " + campaignId));
    // Open events first, then closed ones, each by NotBefore: only the page's closed ones are read.
    List<EventView> open = c.openEvents().stream().sorted(BY_NOT_BEFORE).toList();
    List<CampaignIndex.Sighting> closed =
        c.closedEvents().stream().sorted(CLOSED_BY_NOT_BEFORE).toList();
    int total = open.size() + closed.size();
    int pages = Math.max(1, (total + PAGE - 1) / PAGE);
    if (page < 1 || page > pages) {
      throw new dev.sebridge.fleet.api.ApiException(
          404, "campaign " + campaignId + " has " + pages + " page(s) of events");
    }
    int from = (page - 1) * PAGE;
    int to = Math.min(total, page * PAGE);
    List<EventView> shown = new ArrayList<>();
    for (int i = from; i < to; i++) {
      EventView e =
          i < open.size() ? open.get(i) : views.eventByKey(closed.get(i - open.size()).key());
      if (e != null) { // (a closed one gone since: retention)
        shown.add(e);
      }
    }
    Map<String, VmView> vms = views.vmsOf(shown);
    Map<String, Object> m = summary(c, views::silent);
    m.put("headingId", "cpp-" + c.id()); // the list may have the same campaign's heading
    m.put("events", shown.stream().map(e -> model.event(e, vms)).toList());
    m.put("page", page);
    m.put("pages", pages);
    m.put("first", from + 1);
    m.put("last", from + shown.size());
    if (page > 1) {
      m.put("previous", page - 1);
    }
    if (page < pages) {
      m.put("next", page + 1);
    }
    // The rollout form's events (a policy decision read per open event): for an approver only.
    List<String> rollable = approver ? Campaigns.rollable(c, views) : List.of();
    if (!rollable.isEmpty()) {
      m.put("rollable", rollable.size());
      m.put("reviewed", Campaigns.reviewed(rollable));
      m.put("groupChoices", RolloutSpec.GROUP_ATTRIBUTES.stream().sorted().toList());
    }
    return m;
  }

  private static final Comparator<EventView> BY_NOT_BEFORE =
      Comparator.comparing((EventView e) -> e.notBefore() == null ? Instant.MIN : e.notBefore())
          .thenComparing(EventView::eventId);

  private static final Comparator<CampaignIndex.Sighting> CLOSED_BY_NOT_BEFORE =
      Comparator.comparing(
              (CampaignIndex.Sighting s) ->
                  s.closed().notBefore() == null ? Instant.MIN : s.closed().notBefore())
          .thenComparing(CampaignIndex.Sighting::eventId);
}
