package dev.sebridge.fleet;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * How far some views' topics had been applied on one instance: for each view store, the offset of
 * the newest record applied per partition of its topic. Every instance reads the same topics, so a
 * mark taken on one instance says on any other whether it has applied as much ({@link
 * ViewChanges#awaitApplied}). The page's live stream sends one with each section it tells of, and
 * the page sends it back when it fetches the section, from whichever instance answers.
 *
 * <p>Written {@code store@partition:offset,partition:offset;store@...}, e.g. {@code
 * events-view@0:812,1:790;policies-view@1:14}; a partition with nothing applied is left out.
 *
 * @param offsets by store, by partition: the newest offset applied
 */
public record ViewMark(Map<String, Map<Integer, Long>> offsets) {
  /** The longest mark a request may carry (a store of 256 partitions is about 4 KB). */
  public static final int MAX_LENGTH = 16_384;

  private static final Pattern STORE = Pattern.compile("[a-z][a-z0-9-]{0,63}");
  private static final Pattern POSITION = Pattern.compile("\\d{1,5}:\\d{1,19}");

  public ViewMark {
    Map<String, Map<Integer, Long>> copy = new TreeMap<>();
    offsets.forEach((s, p) -> copy.put(s, java.util.Collections.unmodifiableMap(new TreeMap<>(p))));
    offsets = java.util.Collections.unmodifiableMap(copy);
  }

  /** Nothing applied anywhere: any instance has applied as much. */
  public static final ViewMark NONE = new ViewMark(Map.of());

  /** As written by {@link #toString}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    offsets.forEach(
        (store, positions) -> {
          if (positions.isEmpty()) {
            return;
          }
          if (b.length() > 0) {
            b.append(';');
          }
          b.append(store).append('@');
          StringBuilder p = new StringBuilder();
          positions.forEach(
              (partition, offset) ->
                  p.append(p.length() > 0 ? "," : "").append(partition).append(':').append(offset));
          b.append(p);
        });
    return b.toString();
  }

  /**
   * Reads a mark as {@link #toString} writes it; the empty text is {@link #NONE}.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  public static ViewMark parse(String text) {
    if (text.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("a view mark is at most " + MAX_LENGTH + " characters");
    }
    if (text.isEmpty()) {
      return NONE;
    }
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    for (String part : text.split(";", -1)) {
      int at = part.indexOf('@');
      String store = at < 0 ? part : part.substring(0, at);
      if (at < 0 || !STORE.matcher(store).matches()) {
        throw new IllegalArgumentException("not a view mark's store: " + shorten(part));
      }
      if (offsets.containsKey(store)) {
        throw new IllegalArgumentException("a view mark names " + store + " twice");
      }
      Map<Integer, Long> positions = new TreeMap<>();
      for (String position : part.substring(at + 1).split(",", -1)) {
        if (!POSITION.matcher(position).matches()) {
          throw new IllegalArgumentException(
              "not a view mark's partition:offset: " + shorten(position));
        }
        int colon = position.indexOf(':');
        int partition = Integer.parseInt(position.substring(0, colon));
        long offset;
        try {
          offset = Long.parseLong(position.substring(colon + 1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("an offset out of range: " + shorten(position), e);
        }
        if (positions.put(partition, offset) != null) {
          throw new IllegalArgumentException(
              "a view mark names partition " + partition + " of " + store + " twice");
        }
      }
      offsets.put(store, positions);
    }
    return new ViewMark(offsets);
  }

  private static String shorten(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
