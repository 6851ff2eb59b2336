package dev.sebridge.fleet.model;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Event ids as the fleet compares them: in lower case (IMDS's ids are GUIDs in any case, compared
 * case-insensitively; the stores are keyed by the lower-case form). A rollouts tick at 100,000 VMs
 * compares tens of thousands of ids, mostly the same String objects tick after tick: their lower
 * case is remembered instead of built each time (a new string, its hash computed again).
 *
 * <p>Retention: only ids that are not in lower case already are remembered, at most {@link #KEPT};
 * the memory is emptied whole when it is full (about 10 MiB of GUIDs at most; a fleet with more ids
 * in play than that only loses the shortcut).
 */
public final class EventIds {
  /** The most ids remembered. */
  public static final int KEPT = 1 << 16;

  private static final ConcurrentHashMap<String, String> LOWER = new ConcurrentHashMap<>();

  private EventIds() {}

  /** The id in lower case ({@link Locale#ROOT}). */
  public static String lower(String id) {
    String known = LOWER.get(id);
    if (known != null) {
      return known;
    }
    String lower = id.toLowerCase(Locale.ROOT);
    if (lower != id) { // toLowerCase returns the id itself when it has no upper case
      if (LOWER.size() >= KEPT) {
        LOWER.clear();
      }
      LOWER.put(id, lower);
    }
    return lower;
  }

  /**
   * Whether {@code s} from {@code from} to its end is {@code id} in lower case ({@link #lower}),
   * found without building the lower case when {@code id} is ASCII (an EventId is a GUID).
   */
  public static boolean endsWithLower(String s, int from, String id) {
    int n = id.length();
    if (s.length() - from == n) {
      boolean ascii = true;
      for (int i = 0; i < n && ascii; i++) {
        char c = id.charAt(i);
        if (c >= 0x80) {
          ascii = false;
        } else if (s.charAt(from + i) != (c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c)) {
          return false;
        }
      }
      if (ascii) {
        return true;
      }
    }
    String lower = lower(id); // (outside ASCII, lower case can change the length)
    return s.length() - from == lower.length() && s.startsWith(lower, from);
  }

  /** How many ids are remembered (for the retention test). */
  static int remembered() {
    return LOWER.size();
  }
}
