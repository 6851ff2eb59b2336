package dev.sebridge.fleet.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * The cursors of the API's lists ({@code next}): the list a cursor pages, the store key its page
 * ends at, and a checksum of both. A cursor of another list, or one changed or cut short on its
 * way, is refused (400) rather than read as some other place in the list, where the walk would
 * start again, skip or repeat without a word. Not a secret and not signed: whoever holds a cursor
 * may read the list anyway; it only has to be the one this API gave.
 */
final class Cursors {
  private static final char SEP = '\0';

  private Cursors() {}

  /** The cursor of the page after {@code key} in {@code list}. */
  static String of(String list, String key) {
    String body = list + SEP + key;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((body + SEP + crc(body)).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The key a cursor of {@code list} says its page starts after.
   *
   * @throws ApiException 400 when it is not a cursor this API gave for that list
   */
  static String after(String list, String cursor) {
    String text;
    try {
      text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw notOurs();
    }
    int first = text.indexOf(SEP);
    int last = text.lastIndexOf(SEP);
    if (first < 0
        || last <= first
        || !text.substring(last + 1).equals(crc(text.substring(0, last)))) {
      throw notOurs();
    }
    if (!text.substring(0, first).equals(list)) {
      throw new ApiException(
          400,
          "cursor is of another list (" + text.substring(0, first) + "): use this list's next");
    }
    return text.substring(first + 1, last);
  }

  private static ApiException notOurs() {
    return new ApiException(400, "cursor is not one this API gave: use a list's next");
  }

  private static String crc(String body) {
    CRC32 c = new CRC32();
    c.update(body.getBytes(StandardCharsets.UTF_8));
    return Long.toHexString(c.getValue());
  }
}
