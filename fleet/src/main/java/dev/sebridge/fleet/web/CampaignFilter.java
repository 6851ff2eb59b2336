package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.ApiException;
import dev.sebridge.fleet.api.ApiInput;
import dev.sebridge.fleet.api.CampaignIndex;
import java.util.Map;
import java.util.Set;

/**
 * What the page's list of open maintenance shows ({@code /ui/fragment/events}'s query): campaigns
 * of one event type and source, or whose description or id holds a text, one page of {@link
 * CampaignRows#SHOWN} at a time. An empty field is no filter (a form's "any"). A field the list
 * does not take, one given twice, a page that is not a number from 1, or a text past 256 characters
 * is a 400, as in the API.
 *
 * @param type an event type (case-insensitive), or empty for any
 * @param source Platform or User (case-insensitive), or empty for any
 * @param text held in the campaign's description or id (case-insensitive), or empty
 * @param page from 1; past the last, the last is shown (a refresh after campaigns closed)
 */
record CampaignFilter(String type, String source, String text, int page) {
  /** The list as the page first shows it: every open campaign, the first page. */
  static final CampaignFilter NONE = new CampaignFilter("", "", "", 1);

  static final Set<String> FIELDS = Set.of("type", "source", "text", "page");

  /** The longest text taken (as the API's {@code text}). */
  static final int MAX_TEXT = 256;

  /** The query as sent; null or empty is {@link #NONE}. */
  static CampaignFilter of(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return NONE;
    }
    Map<String, String> q = ApiInput.fields(rawQuery);
    for (Map.Entry<String, String> f : q.entrySet()) {
      if (!FIELDS.contains(f.getKey())) {
        throw new ApiException(400, "the list of open maintenance takes no " + f.getKey());
      }
      f.setValue(f.getValue().strip());
    }
    String text = q.getOrDefault("text", "");
    if (text.length() > MAX_TEXT) {
      throw new ApiException(400, "text: at most " + MAX_TEXT + " characters");
    }
    return new CampaignFilter(
        field(q, "type"), field(q, "source"), text, SectionPage.number(q.getOrDefault("page", "")));
  }

  private static String field(Map<String, String> q, String name) {
    String v = q.getOrDefault(name, "");
    if (v.length() > 64) {
      throw new ApiException(400, name + ": at most 64 characters");
    }
    return v;
  }

  /** The filter as a query, each field encoded: two filters have the same only when equal. */
  String key() {
    return "type="
        + encode(type)
        + "&source="
        + encode(source)
        + "&text="
        + encode(text)
        + "&page="
        + page;
  }

  private static String encode(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Whether this is the list as first shown (the one every page shares). */
  boolean none() {
    return equals(NONE);
  }

  /** Whether the list is narrowed (the page then says "matching"). */
  boolean narrowed() {
    return !type.isEmpty() || !source.isEmpty() || !text.isEmpty();
  }

  /** Whether the campaign is one the list shows (its kind: type, source, description). */
  boolean matches(CampaignIndex.Members m) {
    return m.matches(type, source, text);
  }
}
