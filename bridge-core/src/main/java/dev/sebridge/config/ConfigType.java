package dev.sebridge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a configuration value is written and parsed. {@link #parse} throws {@link
 * IllegalArgumentException} with a message fit to show the user after the key name.
 */
public final class ConfigType<T> {
  private static final Pattern DURATION =
      Pattern.compile("(\\d+)\\s*(ms|s|m|min|h|d)", Pattern.CASE_INSENSITIVE);

  public static final ConfigType<String> STRING = new ConfigType<>("string", s -> s, s -> s);

  public static final ConfigType<Integer> INT =
      new ConfigType<>(
          "int",
          s -> {
            try {
              return Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("'" + s + "' is not a whole number");
            }
          },
          String::valueOf);

  public static final ConfigType<Long> LONG =
      new ConfigType<>(
          "long",
          s -> {
            try {
              return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("'" + s + "' is not a whole number");
            }
          },
          String::valueOf);

  public static final ConfigType<Boolean> BOOLEAN =
      new ConfigType<>(
          "boolean",
          s ->
              switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> true;
                case "false", "no", "off" -> false;
                default -> throw new IllegalArgumentException("'" + s + "' is not true or false");
              },
          String::valueOf);

  /** "250ms", "1s", "5m", "2h", "1d" or ISO-8601 ("PT1S"). */
  public static final ConfigType<Duration> DURATION_TYPE =
      new ConfigType<>("duration", ConfigType::parseDuration, ConfigType::formatDuration);

  /** A size in bytes: "1048576", "512KiB", "64MiB", "1GiB" (also KB/MB/GB as powers of 1024). */
  public static final ConfigType<Long> SIZE =
      new ConfigType<>("size", ConfigType::parseSize, ConfigType::formatSize);

  public static final ConfigType<Path> PATH =
      new ConfigType<>(
          "path",
          s -> {
            if (s.isBlank()) {
              throw new IllegalArgumentException("is empty");
            }
            try {
              return Path.of(s.trim());
            } catch (InvalidPathException e) {
              throw new IllegalArgumentException("'" + s + "' is not a valid path");
            }
          },
          Path::toString);

  /** An absolute http or https URL. */
  public static final ConfigType<URI> HTTP_URL =
      new ConfigType<>(
          "url",
          s -> {
            try {
              URI u = new URI(s.trim());
              if (u.getScheme() == null
                  || !(u.getScheme().equalsIgnoreCase("http")
                      || u.getScheme().equalsIgnoreCase("https"))
                  || u.getHost() == null) {
                throw new IllegalArgumentException("'" + s + "' is not an http(s) URL with a host");
              }
              return u;
            } catch (URISyntaxException e) {
              throw new IllegalArgumentException("'" + s + "' is not a URL: " + e.getReason());
            }
          },
          URI::toString);

  /** Comma-separated list; blanks dropped. */
  public static final ConfigType<List<String>> LIST =
      new ConfigType<>(
          "list",
          s -> Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList(),
          l -> String.join(",", l));

  private final String name;
  private final Function<String, T> parser;
  private final Function<T, String> formatter;

  private ConfigType(String name, Function<String, T> parser, Function<T, String> formatter) {
    this.name = name;
    this.parser = parser;
    this.formatter = formatter;
  }

  public String name() {
    return name;
  }

  public T parse(String text) {
    return parser.apply(text);
  }

  public String format(T value) {
    return formatter.apply(value);
  }

  static long parseSize(String text) {
    Matcher m =
        Pattern.compile("(\\d+)\\s*(b|kib|kb|k|mib|mb|m|gib|gb|g)?", Pattern.CASE_INSENSITIVE)
            .matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 512KiB, 64MiB, 1GiB)");
    }
    long v = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
    return switch (unit.charAt(0)) {
      case 'k' -> v * 1024;
      case 'm' -> v * 1024 * 1024;
      case 'g' -> v * 1024 * 1024 * 1024;
      default -> v;
    };
  }

  static String formatSize(long bytes) {
    if (bytes > 0 && bytes % (1024L * 1024 * 1024) == 0) {
      return bytes / (1024L * 1024 * 1024) + "GiB";
    }
    if (bytes > 0 && bytes % (1024L * 1024) == 0) {
      return bytes / (1024L * 1024) + "MiB";
    }
    if (bytes > 0 && bytes % 1024 == 0) {
      return bytes / 1024 + "KiB";
    }
    return Long.toString(bytes);
  }

  static Duration parseDuration(String text) {
    String s = text.trim();
    if (s.toUpperCase(Locale.ROOT).startsWith("P")) {
      try {
        return Duration.parse(s);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 250ms, 1s, 5m)");
      }
    }
    Matcher m = DURATION.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 250ms, 1s, 5m)");
    }
    long v = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "ms" -> Duration.ofMillis(v);
      case "s" -> Duration.ofSeconds(v);
      case "m", "min" -> Duration.ofMinutes(v);
      case "h" -> Duration.ofHours(v);
      default -> Duration.ofDays(v);
    };
  }

  static String formatDuration(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
