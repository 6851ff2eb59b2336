package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.ApiException;
import dev.sebridge.fleet.api.ApiInput;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which page of a list the page shows ({@code /ui/fragment/NAME?page=N} for the rollouts, the
 * silent agents and the approval history; the open maintenance's {@link CampaignFilter} takes the
 * same {@code page}), and the window it makes over a list of a given length. Page numbers, not
 * cursors: the sections refresh live, and a page that keeps its number while items come and go
 * shows what is there now at that place, as the open maintenance does. The API pages by cursor.
 *
 * @param page from 1; past the last, the last is shown (a refresh after items went)
 */
record SectionPage(int page) {
  static final SectionPage FIRST = new SectionPage(1);

  /**
   * The query as sent; null or empty is the first page. A field other than {@code page}, one given
   * twice, or a page that is not a number from 1 is a 400 naming it.
   */
  static SectionPage of(String section, String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return FIRST;
    }
    Map<String, String> q = ApiInput.fields(rawQuery);
    for (String field : q.keySet()) {
      if (!field.equals("page")) {
        throw new ApiException(400, "the section " + section + " takes no " + field);
      }
    }
    return new SectionPage(number(q.getOrDefault("page", "").strip()));
  }

  /** A page number as a query gives it: empty is the first. */
  static int number(String v) {
    if (v.isEmpty()) {
      return 1;
    }
    if (!v.matches("[1-9][0-9]{0,8}")) {
      throw new ApiException(400, "page: a number from 1, not " + v);
    }
    return Integer.parseInt(v);
  }

  /** This page of a list of {@code total} items, {@code size} a page. */
  Window over(int total, int size) {
    int pages = Math.max(1, (total + size - 1) / size);
    int shown = Math.min(page, pages);
    int from = (shown - 1) * size;
    return new Window(shown, pages, from, Math.min(total, from + size), total);
  }

  /**
   * The items {@code from} (inclusive) to {@code to} (exclusive) of a list of {@code total}, on
   * page {@code page} of {@code pages}.
   */
  record Window(int page, int pages, int from, int to, int total) {
    /**
     * What a pager shows (the {@code pager} partial's model), or null when the list is one page:
     * which items, of how many, and the page before and after when there are.
     *
     * @param section the section's name (its buttons ask for its pages)
     * @param what what the list holds, as the pager names it ("silent agents")
     */
    Map<String, Object> pager(String section, String what) {
      if (pages <= 1) {
        return null;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("section", section);
      m.put("what", what);
      m.put("first", from + 1);
      m.put("last", to);
      m.put("total", total);
      m.put("page", page);
      m.put("pages", pages);
      if (page > 1) {
        m.put("previous", page - 1);
      }
      if (page < pages) {
        m.put("next", page + 1);
      }
      return m;
    }
  }
}
