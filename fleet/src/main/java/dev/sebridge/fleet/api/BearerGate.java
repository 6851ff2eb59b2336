package dev.sebridge.fleet.api;

import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.auth.Principal;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request's token, authenticated, with guessing bounded: the API's bearer token, the page's
 * session cookie ({@link FleetServer#SESSION_COOKIE}). Each token that does not authenticate counts
 * against its client's address (an IPv6 client's /64; behind a trusted proxy, the address it
 * forwards), logged at INFO, once a minute for the same token (a dashboard retrying its expired
 * token is one failure, not one per request); past {@link #FAILURES_PER_MINUTE} different tokens a
 * minute the address's requests with a new token are refused (429) before the token is looked at. A
 * token that authenticated within the last {@link #KNOWN_FOR} (here, or on the page's sign-in form:
 * {@link #signIns}) is still looked at (a colleague's dashboard behind the same NAT keeps working
 * while someone there guesses): a guess is a new token, and an address's guesses stay bounded.
 * Before, any route answered 401 or 200 to a guessed token as fast as it was asked, logged at DEBUG
 * or not at all, so the page's sign-in limit could be walked around (with a bearer header on the
 * API, and with a made-up session cookie on the page until it was authenticated here too).
 * Retention: the limits' (at most 10,000 addresses, the least recently used dropped), at most
 * {@link #REMEMBERED} failed tokens (a hash of each with its address), for a minute each, and at
 * most {@link #REMEMBERED} tokens that authenticated (a hash of each), for {@link #KNOWN_FOR} after
 * each last did.
 */
final class BearerGate {
  private static final Logger LOG = LoggerFactory.getLogger(BearerGate.class);

  /** Different tokens from one address that may fail to authenticate in a minute. */
  static final int FAILURES_PER_MINUTE = 30;

  /** Failed tokens remembered (the least recently failed dropped first); good ones as many. */
  static final int REMEMBERED = 10_000;

  /** How long a token that authenticated passes an address that spent its failures. */
  static final java.time.Duration KNOWN_FOR = java.time.Duration.ofHours(1);

  private final Authenticator auth;
  private final Set<String> trustedProxies;
  private final RateLimits failures = new RateLimits(FAILURES_PER_MINUTE);
  // address|hash of a token that failed -> when it was counted (the same token is counted once a
  // minute)
  private final java.util.Map<String, Long> failed = remembered();

  // hash of a token that authenticated -> when it last did
  private final java.util.Map<String, Long> known = remembered();

  private final java.util.function.LongSupplier nanoTime;

  BearerGate(Authenticator auth, Set<String> trustedProxies) {
    this(auth, trustedProxies, System::nanoTime);
  }

  /** With the time read from {@code nanoTime} (tests). */
  BearerGate(
      Authenticator auth, Set<String> trustedProxies, java.util.function.LongSupplier nanoTime) {
    this.auth = auth;
    this.trustedProxies = HttpLimits.canonical(trustedProxies);
    this.nanoTime = nanoTime;
  }

  /**
   * The principal of the request's bearer token; empty without one, or when it does not
   * authenticate.
   *
   * @throws ApiException 429 while the client's address has spent its failures this minute
   */
  Optional<Principal> bearer(HttpCall call) {
    String h = call.header("Authorization");
    if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    return principal(call, h.substring(7).trim(), "bearer token");
  }

  /**
   * The principal of the page's session cookie; empty without one, or when it does not
   * authenticate.
   *
   * @throws ApiException 429 while the client's address has spent its failures this minute
   */
  Optional<Principal> session(HttpCall call) {
    return call.cookie(FleetServer.SESSION_COOKIE)
        .flatMap(token -> principal(call, token, "session cookie"));
  }

  private Optional<Principal> principal(HttpCall call, String token, String what) {
    try {
      return principal(HttpCall.rateKey(call.clientAddress(trustedProxies)), token, what);
    } catch (ApiException spent) {
      call.header("Retry-After", "60");
      throw spent;
    }
  }

  /**
   * The token's principal, for a client by its rate key.
   *
   * @throws ApiException 429 when the client spent its failures this minute and the token did not
   *     authenticate within {@link #KNOWN_FOR}
   */
  Optional<Principal> principal(String client, String token, String what) {
    String hash = hash(token);
    if (failures.spent(client) && !known(hash)) {
      throw new ApiException(
          429, "too many tokens from this address did not authenticate: wait a minute");
    }
    Optional<Principal> p = auth.authenticate(token);
    if (p.isPresent()) {
      authenticated(hash);
    } else if (newFailure(client + "|" + hash)) {
      failures.take(client);
      LOG.info("a {} from {} did not authenticate", what, client);
    }
    return p;
  }

  /**
   * The same authentication, for the page's sign-in form: a token that signs in passes its
   * address's failure limit from then on, as one that authenticated here does (the page's first
   * request with its new session cookie from a spent address was refused 429 until the minute
   * passed).
   */
  Authenticator signIns() {
    return token -> {
      Optional<Principal> p = auth.authenticate(token);
      if (p.isPresent()) {
        authenticated(hash(token));
      }
      return p;
    };
  }

  /** Whether this token authenticated within {@link #KNOWN_FOR}. */
  private synchronized boolean known(String hash) {
    Long at = known.get(hash);
    if (at == null) {
      return false;
    }
    if (nanoTime.getAsLong() - at >= KNOWN_FOR.toNanos()) {
      known.remove(hash);
      return false;
    }
    return true;
  }

  private synchronized void authenticated(String hash) {
    known.put(hash, nanoTime.getAsLong());
  }

  /** How many tokens that authenticated it remembers (tests). */
  synchronized int knownTokens() {
    return known.size();
  }

  /** Whether this address's token failed for the first time this minute. */
  private synchronized boolean newFailure(String key) {
    long now = nanoTime.getAsLong();
    Long at = failed.get(key);
    if (at != null && now - at < java.util.concurrent.TimeUnit.MINUTES.toNanos(1)) {
      return false;
    }
    failed.put(key, now);
    return true;
  }

  /** A map of at most {@link #REMEMBERED} entries, the least recently used dropped first. */
  private static java.util.Map<String, Long> remembered() {
    return new java.util.LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(java.util.Map.Entry<String, Long> eldest) {
        return size() > REMEMBERED;
      }
    };
  }

  private static String hash(String token) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d, 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
