package dev.sebridge.fleet.web;

import dev.sebridge.fleet.api.HttpCall;
import dev.sebridge.fleet.api.HttpLimits;
import dev.sebridge.fleet.api.RateLimits;
import dev.sebridge.fleet.api.Route;
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
  private final RateLimits attempts;
  private final java.util.Set<String> trustedProxies;
  private final BiFunction<String, Object, String> render;

  SignIn(WebSession session, HttpLimits limits, BiFunction<String, Object, String> render) {
    this.session = session;
    this.attempts = new RateLimits(limits.signInsPerMinute());
    this.trustedProxies = limits.trustedProxies();
    this.render = render;
  }

  /**
   * Before a sign-in's body is read: counts it against its address, and refuses it (answered) past
   * the address's attempts or without the form's cookie.
   */
  Route.Admission admit(HttpCall ex) {
    if (!ex.method().equals("POST")) {
      return Route.Admission.NOT_MINE;
    }
    if (!attempts.take(HttpCall.rateKey(ex.clientAddress(trustedProxies)))) {
      ex.header("Retry-After", "60");
      return refused(ex, 429, "Too many sign-ins from this address: wait a minute.");
    }
    if (!WebSession.hasLoginNonce(ex)) {
      return refused(ex, 403, "The sign-in form expired: reload it.");
    }
    return Route.Admission.ADMITTED;
  }

  /** GET: the form; POST: signs in, or the form again with why not. */
  void answer(HttpCall ex, String method) throws IOException {
    if (!method.equals("POST")) {
      form(ex, 200, null);
      return;
    }
    Map<String, String> form =
        FleetPage.form(ex, java.util.Set.of("token", "nonce"), java.util.Set.of());
    String client = ex.clientAddress(trustedProxies);
    if (!WebSession.loginNonceMatches(ex, form.get("nonce"))) {
      LOG.info(
          "a sign-in to the page from {} was refused: the form's token does not match", client);
      refused(ex, 403, "The sign-in form expired: reload it.");
      return;
    }
    String token = form.getOrDefault("token", "").trim();
    if (token.matches("[A-Za-z0-9._~+/=-]{1,4000}")) {
      Optional<Principal> p = session.authenticate(token);
      if (p.isPresent()) {
        LOG.info("{} signed in to the page from {}", p.get().name(), client);
        ex.addHeader("Set-Cookie", session.setCookie(token));
        ex.redirect("/ui/");
        return;
      }
    }
    LOG.info("a sign-in to the page from {} was refused: not a valid token", client);
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

  private Route.Admission refused(HttpCall ex, int status, String error) {
    FleetPage.html(ex, status, render.apply("message.mustache", Map.of("error", error)));
    return Route.Admission.REFUSED;
  }
}
