package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.ApiException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The page's sections ({@code /ui/fragment/NAME}, one per {@link SectionViews#SECTIONS}): each
 * rendered once for all pages of one role asking for the same views ({@link SectionCache}): the
 * sections as first shown (one rendering per section and role, always kept), and the open
 * maintenance narrowed or paged ({@link CampaignFilter}) or another page than the first of a list
 * ({@link SectionPage}), the {@link #OTHERS} most recently asked for. Until 2026-11-29 those were
 * rendered for each request: every open page on a list's page 2 rendered it again at each change.
 */
final class PageSections {
  private final LiveStream live;
  private final CampaignRows campaigns;
  private final RolloutRows rollouts;
  private final PageModel model;
  private final CoverageSection coverage;
  private final BiFunction<String, Object, String> render;

  /** The most renderings kept of narrowed lists and pages after the first. */
  static final int OTHERS = 64;

  private final SectionCache cache = new SectionCache(SectionViews.SECTIONS.size() * 2);
  private final SectionCache others = new SectionCache(OTHERS);

  PageSections(
      LiveStream live,
      CampaignRows campaigns,
      RolloutRows rollouts,
      PageModel model,
      CoverageSection coverage,
      BiFunction<String, Object, String> render) {
    this.live = live;
    this.campaigns = campaigns;
    this.rollouts = rollouts;
    this.model = model;
    this.coverage = coverage;
    this.render = render;
  }

  /** The header a page's request for a section carries the mark of the change it was told of in. */
  static final String VIEWS_HEADER = "X-Sebridge-Views";

  /**
   * Set on a section's 503 when this instance's views are behind the change the page was told of
   * ({@link PageSections#caughtUp}): the page keeps the section and asks again.
   */
  static final String BEHIND_HEADER = "X-Sebridge-Behind";

  static final String BEHIND =
      "This instance's views are behind the change this page was told of; asked again in a"
          + " second.";

  /**
   * How long a request for a section waits for this instance to apply the change the page was told
   * of (by another instance, behind the same load balancer) before it is answered 503.
   */
  static final java.time.Duration CATCH_UP = java.time.Duration.ofMillis(500);

  /**
   * Whether this instance has applied the views of the change a page was told of ({@code marks}:
   * the {@link #VIEWS_HEADER} it sent, none when it was not told of one), waiting up to {@link
   * #CATCH_UP} for it: answered now, the section would show views older than the page heard of, and
   * keep them until the next change.
   *
   * @throws ApiException 404 for no such section, 400 for a mark that is not one
   */
  boolean caughtUp(String name, List<String> marks) {
    if (!SectionViews.SECTIONS.containsKey(name)) {
      throw new ApiException(404, "no such fragment: " + name);
    }
    if (marks.isEmpty()) {
      return true;
    }
    if (marks.size() > 1) {
      throw new ApiException(400, VIEWS_HEADER + " is given " + marks.size() + " times");
    }
    dev.sebridge.fleet.ViewMark mark;
    try {
      mark = dev.sebridge.fleet.ViewMark.parse(marks.get(0));
    } catch (IllegalArgumentException e) {
      throw new ApiException(400, VIEWS_HEADER + ": " + e.getMessage());
    }
    for (String store : mark.offsets().keySet()) {
      if (!SectionViews.MARKED.get(name).contains(store)) {
        throw new ApiException(
            400, VIEWS_HEADER + ": the section " + name + " does not read " + store);
      }
    }
    try {
      return live.caughtUp(mark, CATCH_UP);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "the fleet service is stopping");
    }
  }

  /**
   * The section {@code name}'s HTML for a reader or an approver.
   *
   * @param query the request's raw query: none, but for the open maintenance
   * @throws ApiException 404 for no such section, 400 for a query it does not take
   */
  String fragment(String name, String query, boolean approver) {
    if (!SectionViews.SECTIONS.containsKey(name)) {
      throw new ApiException(404, "no such fragment: " + name);
    }
    if (name.equals("events")) {
      CampaignFilter filter = CampaignFilter.of(query);
      return filter.none()
          ? cached(name, approver, () -> section(name, approver, filter, SectionPage.FIRST))
          : other(
              name + "?" + filter.key(),
              name,
              approver,
              () -> section(name, approver, filter, SectionPage.FIRST));
    }
    if (!PAGED.contains(name)) {
      if (query != null && !query.isEmpty()) {
        throw new ApiException(400, "the section " + name + " takes no query");
      }
      return cached(name, approver, () -> section(name, approver, null, SectionPage.FIRST));
    }
    SectionPage page = SectionPage.of(name, query);
    return page.equals(SectionPage.FIRST)
        ? cached(name, approver, () -> section(name, approver, null, page))
        : other(
            name + "?page=" + page.page(),
            name,
            approver,
            () -> section(name, approver, null, page));
  }

  /** The sections that page by number ({@link SectionPage}); the open maintenance pages its own. */
  static final java.util.Set<String> PAGED = java.util.Set.of("rollouts", "silent", "approvals");

  /** The section's first page as every page of this role shares it, rendered once per change. */
  private String cached(String name, boolean approver, java.util.function.Supplier<String> render) {
    return cache.get(name + (approver ? "/approver" : "/reader"), () -> live.version(name), render);
  }

  /** A narrowed list or a later page, as every page of this role asking for it shares it. */
  private String other(
      String key, String name, boolean approver, java.util.function.Supplier<String> render) {
    return others.get(key + (approver ? "/approver" : "/reader"), () -> live.version(name), render);
  }

  private String section(String name, boolean approver, CampaignFilter filter, SectionPage page) {
    Map<String, Object> m = new HashMap<>();
    m.put("approver", approver);
    switch (name) {
      case "events" -> m.putAll(campaigns.list(filter));
      case "rollouts" -> m.putAll(rollouts.rollouts(page));
      case "silent" -> m.putAll(model.silent(page));
      case "approvals" -> m.putAll(model.approvals(page));
      case "coverage" -> m.putAll(coverage.model());
      default -> throw new ApiException(404, "no such fragment: " + name);
    }
    if (!m.containsKey("empty")) {
      m.put("empty", ((List<?>) m.get(name)).isEmpty());
    }
    return render.apply(name + ".mustache", m);
  }
}
