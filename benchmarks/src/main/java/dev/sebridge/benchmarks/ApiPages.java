package dev.sebridge.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;

/** A paged list of the fleet API counted to its end, following each page's {@code next}. */
final class ApiPages {
  private ApiPages() {}

  /** A GET of the API: the answer, or null while it does not answer. */
  interface Get {
    JsonNode get(String path) throws InterruptedException;
  }

  /** The items of {@code list} (under {@code field}), every page of them; -1 while no answer. */
  static int count(Get get, String list, String field) throws InterruptedException {
    return count(get, list, "", field);
  }

  /** The same, of the items {@code filter} (a query, such as {@code open=false}) keeps. */
  static int count(Get get, String list, String filter, String field) throws InterruptedException {
    int n = 0;
    String prefix = list + "?" + (filter.isEmpty() ? "" : filter + "&");
    String path = prefix + "limit=1000";
    for (int pages = 0; pages < 1_000; pages++) {
      JsonNode page = get.get(path);
      if (page == null) {
        return -1;
      }
      n += page.path(field).size();
      if (!page.hasNonNull("next")) {
        break;
      }
      path = prefix + "limit=1000&cursor=" + page.get("next").asText();
    }
    return n;
  }
}
