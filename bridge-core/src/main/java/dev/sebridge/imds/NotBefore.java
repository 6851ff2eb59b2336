package dev.sebridge.imds;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;

/**
 * Parses NotBefore defensively: IMDS writes an HTTP date ({@code Mon, 19 Sep 2016 18:29:47 GMT}),
 * an empty string once Started, and other producers have been seen writing ISO-8601.
 */
public final class NotBefore {
  private static final DateTimeFormatter RFC_1123 =
      DateTimeFormatter.RFC_1123_DATE_TIME.withLocale(Locale.US);
  private static final DateTimeFormatter RFC_1123_NO_WEEKDAY =
      DateTimeFormatter.ofPattern("d MMM yyyy HH:mm:ss zzz", Locale.US);

  private NotBefore() {}

  /** The instant, or empty for "" and for text that is no date this parser knows. */
  public static Optional<Instant> parse(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String s = text.trim();
    try {
      return Optional.of(ZonedDateTime.parse(s, RFC_1123).toInstant());
    } catch (DateTimeParseException e) {
      // fall through: a wrong weekday or another format
    }
    int comma = s.indexOf(',');
    if (comma > 0 && comma < 5) {
      try {
        return Optional.of(
            ZonedDateTime.parse(s.substring(comma + 1).trim(), RFC_1123_NO_WEEKDAY).toInstant());
      } catch (DateTimeParseException e) {
        // fall through
      }
    }
    try {
      return Optional.of(OffsetDateTime.parse(s).toInstant());
    } catch (DateTimeParseException e) {
      // fall through
    }
    try {
      // ISO-8601 without an offset: IMDS times are UTC.
      return Optional.of(LocalDateTime.parse(s).toInstant(ZoneOffset.UTC));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
