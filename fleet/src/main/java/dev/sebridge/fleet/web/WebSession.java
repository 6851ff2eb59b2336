package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.HttpCall;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The page's sign-in: the same bearer tokens as the API, kept in an HttpOnly, SameSite=Strict
 * cookie. Every state-changing request must also carry {@code X-CSRF-Token}, a hash of the token
 * that only a page served to the signed-in browser knows (the signed-in page sends it with every
 * htmx request): a form posted from another site has the cookie at most, never the header. Nothing
 * is kept on the server, so any instance behind the load balancer accepts the session.
 */
final class WebSession {
  static final String COOKIE = dev.sebridge.fleet.api.FleetServer.SESSION_COOKIE;
  static final String CSRF_HEADER = "X-CSRF-Token";

  /** The sign-in form's own CSRF token: a cookie of the form's path and the same in a field. */
  static final String LOGIN_COOKIE = "sebridge_login";

  private static final SecureRandom RANDOM = new SecureRandom();
  private final Authenticator auth;
  private final boolean secure;

  WebSession(Authenticator auth, boolean secure) {
    this.auth = auth;
    this.secure = secure;
  }

  /** The signed-in principal and their token, if the cookie holds a valid one. */
  record Signed(Principal principal, String token) {
    String csrf() {
      return csrfOf(token);
    }
  }

  /**
   * The signed-in principal and their token: the principal the server found for the request's
   * cookie (authenticated once, its failures limited per address: {@code api.BearerGate}).
   */
  static Optional<Signed> signedIn(HttpCall ex, Optional<Principal> principal) {
    return principal.flatMap(p -> token(ex).map(t -> new Signed(p, t)));
  }

  Optional<Principal> authenticate(String token) {
    return auth.authenticate(token);
  }

  /** True when the request carries the right CSRF header and, if it says, our own origin. */
  static boolean sameSite(HttpCall ex, Signed s) {
    String header = ex.header(CSRF_HEADER);
    if (header == null
        || !MessageDigest.isEqual(
            header.getBytes(StandardCharsets.UTF_8), s.csrf().getBytes(StandardCharsets.UTF_8))) {
      return false;
    }
    String origin = ex.header("Origin");
    String host = ex.header("Host");
    return origin == null || host == null || origin.endsWith("://" + host);
  }

  /** The session cookie; Secure as configured ({@code fleet.http.secure-cookie}), never guessed. */
  String setCookie(String token) {
    return COOKIE
        + "="
        + token
        + "; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=43200"
        + (secure ? "; Secure" : "");
  }

  /** A fresh sign-in form token, and the cookie that carries it for ten minutes. */
  String[] loginNonce() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    String nonce = HexFormat.of().formatHex(b);
    return new String[] {
      nonce,
      LOGIN_COOKIE
          + "="
          + nonce
          + "; Path=/ui/login; HttpOnly; SameSite=Strict; Max-Age=600"
          + (secure ? "; Secure" : "")
    };
  }

  /** True when the sign-in form's field matches its cookie. */
  static boolean loginNonceMatches(HttpCall ex, String field) {
    return ex.cookie(LOGIN_COOKIE)
        .filter(
            c ->
                field != null
                    && MessageDigest.isEqual(
                        c.getBytes(StandardCharsets.UTF_8), field.getBytes(StandardCharsets.UTF_8)))
        .isPresent();
  }

  /** Whether the request carries a sign-in form cookie of the form {@link #loginNonce} makes. */
  static boolean hasLoginNonce(HttpCall ex) {
    return ex.cookie(LOGIN_COOKIE).filter(c -> c.matches("[0-9a-f]{32}")).isPresent();
  }

  /**
   * A session cookie that did not authenticate (its token expired or revoked) is cleared with the
   * answer: an open tab reconnecting its live stream every minute would otherwise count against its
   * address's failing tokens ({@code api.BearerGate}) until it is closed, and lock a shared address
   * (an office's NAT) out of the page and the API.
   */
  static void forget(HttpCall ex) {
    if (token(ex).isPresent()) {
      ex.addHeader("Set-Cookie", clearCookie());
    }
  }

  static String clearCookie() {
    return COOKIE + "=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0";
  }

  private static Optional<String> token(HttpCall ex) {
    return ex.cookie(COOKIE);
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
