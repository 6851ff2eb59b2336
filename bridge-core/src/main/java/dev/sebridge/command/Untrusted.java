package dev.sebridge.command;

/**
 * Strings that came from outside (a command's id, kid, alg, iss, requestedBy, reason, EventIds)
 * made safe to log and to publish: control characters and line or paragraph separators are escaped
 * ({@code \n}, {@code \u0000}...), so no value can start a log line of its own or break a JSON log;
 * and each kind of value is cut to a documented length, so what an attacker sends is never echoed
 * at its own size (docs/security.md, "Untrusted strings").
 */
public final class Untrusted {
  /** A command id (the CloudEvent {@code id}, the {@code jti}). */
  public static final int ID = 128;

  /** A key id. */
  public static final int KID = 128;

  /** An algorithm name, a header parameter. */
  public static final int ALG = 32;

  /** {@code iss}, {@code requestedBy}. */
  public static final int PRINCIPAL = 256;

  /** A command's {@code reason}. */
  public static final int REASON = 512;

  /** An EventId (a GUID is 36). */
  public static final int EVENT_ID = 64;

  private Untrusted() {}

  /** The value escaped and cut to {@code max} characters (null stays null). */
  public static String text(String value, int max) {
    if (value == null) {
      return null;
    }
    StringBuilder b = new StringBuilder(Math.min(value.length(), max) + 16);
    int i = 0;
    for (; i < value.length() && b.length() < max; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20
              || (c >= 0x7f && c <= 0x9f)
              || c == '\u2028'
              || c == '\u2029'
              || (c >= '\u202a' && c <= '\u202e')
              || (c >= '\u2066' && c <= '\u2069')) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    if (i < value.length()) {
      b.append("…(").append(value.length() - i).append(" more)");
    }
    return b.toString();
  }

  /** True when the value needs no escaping and is at most {@code max} characters long. */
  public static boolean isPlain(String value, int max) {
    return value != null && value.length() <= max && text(value, max).equals(value);
  }
}
