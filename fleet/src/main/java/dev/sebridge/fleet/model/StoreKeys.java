package dev.sebridge.fleet.model;

import java.util.Set;

/**
 * What an id must be to key a view (a vmId, an EventId), wherever it comes from: an agent's
 * envelope or Azure's central delivery. The stores key by its UTF-8 bytes and a list's cursor is
 * the last key it listed; the page links to it as a path segment.
 */
public final class StoreKeys {
  /** The longest id the fleet keeps: a key of this size always fits a cursor (Azure's are 36). */
  public static final int MAX_KEY = 256;

  private static final Set<String> DOT_SEGMENTS = Set.of(".", "..");

  private StoreKeys() {}

  /** Why this id cannot key a view, or null when it can (null and "" are no key: not checked). */
  public static String problem(String id) {
    if (id == null || id.isEmpty()) {
      return null;
    }
    if (id.length() > MAX_KEY) {
      return "an id longer than " + MAX_KEY + " characters";
    }
    // "." or ".." as a path segment is resolved by the browser to another page.
    if (DOT_SEGMENTS.contains(id)) {
      return "an id that is \".\" or \"..\"";
    }
    // A lone surrogate becomes '?' in UTF-8: "vm-\ud800", "vm-\udc00" and "vm-?" would share one
    // view, and the keys' order would break.
    if (!wellFormed(id)) {
      return "an id with a lone surrogate (not UTF-16)";
    }
    return null;
  }

  /** Whether every surrogate in {@code s} is half of a pair. */
  static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
