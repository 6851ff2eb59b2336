package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.HttpCall;
import dev.sebridge.fleet.api.RateLimits;
import dev.sebridge.fleet.auth.Principal;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The page's sign-in ({@code /ui/login}): the form carries its own CSRF token (a cookie of the
 * form's path and the same value in a field, {@link WebSession#loginNonce}); failures are logged at
 * INFO with the client's address, and an address past its failures a minute is refused before its
 * body is read.
 */
final class SignIn {
  private static final Logger LOG = LoggerFactory.getLogger(SignIn.class);

  private final WebSession session;
  private final RateLimits failures;
  private final BiFunction<String, Object, String> render;

  SignIn(WebSession session, int failuresPerMinute, BiFunction<String, Object, String> render) {
    this.session = session;
    this.failures = new RateLimits(failuresPerMinute);
    this.render = render;
  }

  /** Before a sign-in's body is read: refuses it (and answers) when its address or form may not. */
  boolean refuse(HttpCall ex) {
    if (failures.spent(ex.remoteAddress())) {
      ex.header("Retry-After", "60");
      return refused(ex, 429, "Too many failed sign-ins from this address: wait a minute.");
    }
    if (!WebSession.hasLoginNonce(ex)) {
      return refused(ex, 403, "The sign-in form expired: reload it.");
    }
    return false;
  }

  /** GET: the form; POST: signs in, or the form again with why not. */
  void answer(HttpCall ex, String method) throws IOException {
    if (!method.equals("POST")) {
      form(ex, 200, null);
      return;
    }
    Map<String, String> form = FleetPage.form(ex);
    if (!WebSession.loginNonceMatches(ex, form.get("nonce"))) {
      refused(ex, 403, "The sign-in form expired: reload it.");
      return;
    }
    String token = form.getOrDefault("token", "").trim();
    if (token.matches("[A-Za-z0-9._~+/=-]{1,4000}")) {
      Optional<Principal> p = session.authenticate(token);
      if (p.isPresent()) {
        LOG.info("{} signed in to the page from {}", p.get().name(), ex.remoteAddress());
        ex.addHeader("Set-Cookie", session.setCookie(token));
        ex.redirect("/ui/");
        return;
      }
    }
    failures.take(ex.remoteAddress());
    LOG.info("a sign-in to the page from {} was refused: not a valid token", ex.remoteAddress());
    form(ex, 401, "That token is not valid here.");
  }

  private void form(HttpCall ex, int status, String error) {
    String[] nonce = session.loginNonce();
    ex.addHeader("Set-Cookie", nonce[1]);
    Map<String, Object> scope = new HashMap<>();
    scope.put("nonce", nonce[0]);
    if (error != null) {
      scope.put("error", error);
    }
    FleetPage.html(ex, status, render.apply("login.mustache", scope));
  }

  private boolean refused(HttpCall ex, int status, String error) {
    FleetPage.html(ex, status, render.apply("message.mustache", Map.of("error", error)));
    return true;
  }
}
