package dev.sebridge.fleet.web;

import com.sun.net.httpserver.HttpExchange;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The page's sign-in: the same bearer tokens as the API, kept in an HttpOnly, SameSite=Strict
 * cookie. Every state-changing request must also carry {@code X-CSRF-Token}, a hash of the token
 * that only a page served to the signed-in browser knows (the signed-in page sends it with every
 * htmx request): a form posted from another site has the cookie at most, never the header. Nothing
 * is kept on the server, so any instance behind the load balancer accepts the session.
 */
final class WebSession {
  static final String COOKIE = "sebridge_fleet";
  static final String CSRF_HEADER = "X-CSRF-Token";

  private final Authenticator auth;

  WebSession(Authenticator auth) {
    this.auth = auth;
  }

  /** The signed-in principal and their token, if the cookie holds a valid one. */
  record Signed(Principal principal, String token) {
    String csrf() {
      return csrfOf(token);
    }
  }

  Optional<Signed> signedIn(HttpExchange ex) {
    return token(ex).flatMap(t -> auth.authenticate(t).map(p -> new Signed(p, t)));
  }

  Optional<Principal> authenticate(String token) {
    return auth.authenticate(token);
  }

  /** True when the request carries the right CSRF header and, if it says, our own origin. */
  static boolean sameSite(HttpExchange ex, Signed s) {
    String header = ex.getRequestHeaders().getFirst(CSRF_HEADER);
    if (header == null
        || !MessageDigest.isEqual(
            header.getBytes(StandardCharsets.UTF_8), s.csrf().getBytes(StandardCharsets.UTF_8))) {
      return false;
    }
    String origin = ex.getRequestHeaders().getFirst("Origin");
    String host = ex.getRequestHeaders().getFirst("Host");
    return origin == null || host == null || origin.endsWith("://" + host);
  }

  static String setCookie(HttpExchange ex, String token) {
    boolean https = "https".equalsIgnoreCase(ex.getRequestHeaders().getFirst("X-Forwarded-Proto"));
    return COOKIE
        + "="
        + token
        + "; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=43200"
        + (https ? "; Secure" : "");
  }

  static String clearCookie() {
    return COOKIE + "=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0";
  }

  private static Optional<String> token(HttpExchange ex) {
    List<String> headers = ex.getRequestHeaders().get("Cookie");
    if (headers == null) {
      return Optional.empty();
    }
    for (String h : headers) {
      for (String part : h.split(";")) {
        String p = part.trim();
        if (p.startsWith(COOKIE + "=") && p.length() > COOKIE.length() + 1) {
          return Optional.of(p.substring(COOKIE.length() + 1));
        }
      }
    }
    return Optional.empty();
  }

  static String csrfOf(String token) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(("sebridge-fleet-csrf|" + token).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
