package dev.sebridge.fleet.api;

import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request's bearer token, authenticated, with guessing bounded: each token that does not
 * authenticate counts against its client's address (an IPv6 client's /64; behind a trusted proxy,
 * the address it forwards), logged at INFO; past {@link #FAILURES_PER_MINUTE} a minute the
 * address's requests with a token are refused (429) before the token is looked at. Before, any
 * route answered 401 or 200 to a guessed token as fast as it was asked, logged at DEBUG or not at
 * all, so the page's sign-in limit could be walked around. Retention: the limits' (at most 10,000
 * addresses, the least recently used dropped).
 */
final class BearerGate {
  private static final Logger LOG = LoggerFactory.getLogger(BearerGate.class);

  /** Tokens from one address that may fail to authenticate in a minute. */
  static final int FAILURES_PER_MINUTE = 30;

  private final Authenticator auth;
  private final Set<String> trustedProxies;
  private final RateLimits failures = new RateLimits(FAILURES_PER_MINUTE);

  BearerGate(Authenticator auth, Set<String> trustedProxies) {
    this.auth = auth;
    this.trustedProxies = Set.copyOf(trustedProxies);
  }

  /**
   * The principal of the request's bearer token; empty without one, or when it does not
   * authenticate.
   *
   * @throws ApiException 429 while the client's address has spent its failures this minute
   */
  Optional<Principal> principal(HttpCall call) {
    String h = call.header("Authorization");
    if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String client = HttpCall.rateKey(call.clientAddress(trustedProxies));
    if (failures.spent(client)) {
      call.header("Retry-After", "60");
      throw new ApiException(
          429, "too many tokens from this address did not authenticate: wait a minute");
    }
    Optional<Principal> p = auth.authenticate(h.substring(7).trim());
    if (p.isEmpty()) {
      failures.take(client);
      LOG.info("a bearer token from {} did not authenticate", client);
    }
    return p;
  }
}
