package dev.sebridge.fleet.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sebridge.fleet.streams.JsonSerde;
import java.time.Clock;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.KeyValue;

/** What every list route answers (a page and its cursor), and its {@code text} filter. */
final class ListAnswers {
  private ListAnswers() {}

  /** Whether {@code text} (null: any) is in one of {@code fields}, case-insensitively. */
  static boolean mentions(String text, String... fields) {
    return mentions(text, Arrays.asList(fields));
  }

  static boolean mentions(String text, Collection<String> fields) {
    if (text == null) {
      return true;
    }
    String t = text.toLowerCase(Locale.ROOT);
    return fields.stream().anyMatch(f -> f != null && f.toLowerCase(Locale.ROOT).contains(t));
  }

  /**
   * A page of {@code list}: the first {@code limit} of {@code found} (read {@code limit + 1}: one
   * more says more follow) under {@code items}, each added by {@code add}, and {@code next}, the
   * cursor after the last shown, when more follow, or after the last record read when the read's
   * budget ended first ({@link KeyScans}: the page may then hold fewer than {@code limit}, or
   * none).
   */
  static <V> ObjectNode page(
      String list,
      String items,
      List<KeyValue<String, V>> found,
      int limit,
      Clock clock,
      BiConsumer<ArrayNode, KeyValue<String, V>> add) {
    ObjectNode out = JsonSerde.JSON.createObjectNode();
    out.put("generatedAt", clock.instant().toString());
    ArrayNode array = out.putArray(items);
    List<KeyValue<String, V>> shown = found.subList(0, Math.min(limit, found.size()));
    shown.forEach(kv -> add.accept(array, kv));
    if (found.size() > limit) {
      out.put("next", Cursors.of(list, shown.get(shown.size() - 1).key));
    } else if (found instanceof KeyScans.Scanned<?> s && s.stoppedAt() != null) {
      // The page's read ended before it found limit + 1: on from where it stopped.
      out.put("next", Cursors.of(list, s.stoppedAt()));
    }
    return out;
  }
}
