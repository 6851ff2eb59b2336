package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.ApiException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The page's sections ({@code /ui/fragment/NAME}, one per {@link LiveStream#SECTIONS}): each
 * rendered once for all pages of one role asking for the same views ({@link SectionCache}); the
 * open maintenance narrowed or paged ({@link CampaignFilter}, the only section that takes a query)
 * is rendered for its request alone, so the cache holds one rendering per section and role.
 */
final class PageSections {
  private final LiveStream live;
  private final CampaignRows campaigns;
  private final RolloutRows rollouts;
  private final PageModel model;
  private final CoverageSection coverage;
  private final BiFunction<String, Object, String> render;
  private final SectionCache cache = new SectionCache();

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

  /**
   * The section {@code name}'s HTML for a reader or an approver.
   *
   * @param query the request's raw query: none, but for the open maintenance
   * @throws ApiException 404 for no such section, 400 for a query it does not take
   */
  String fragment(String name, String query, boolean approver) {
    if (!LiveStream.SECTIONS.containsKey(name)) {
      throw new ApiException(404, "no such fragment: " + name);
    }
    if (!name.equals("events") && query != null && !query.isEmpty()) {
      throw new ApiException(400, "the section " + name + " takes no query");
    }
    CampaignFilter filter = CampaignFilter.of(query);
    return filter.none()
        ? cache.get(
            name + (approver ? "/approver" : "/reader"),
            () -> live.version(name),
            () -> section(name, approver, filter))
        : section(name, approver, filter);
  }

  private String section(String name, boolean approver, CampaignFilter filter) {
    Map<String, Object> m = new HashMap<>();
    m.put("approver", approver);
    switch (name) {
      case "events" -> m.putAll(campaigns.list(filter));
      case "rollouts" -> m.put("rollouts", rollouts.rollouts());
      case "silent" -> m.putAll(model.silent());
      case "approvals" -> m.put("approvals", model.approvals());
      case "coverage" -> m.putAll(coverage.model());
      default -> throw new ApiException(404, "no such fragment: " + name);
    }
    if (!m.containsKey("empty")) {
      m.put("empty", ((List<?>) m.get(name)).isEmpty());
    }
    return render.apply(name + ".mustache", m);
  }
}
