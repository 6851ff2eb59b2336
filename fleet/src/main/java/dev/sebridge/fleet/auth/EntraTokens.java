package dev.sebridge.fleet.auth;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.MalformedURLException;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Microsoft Entra ID access tokens as Entra issues them (docs/fleet.md, "Who may do what"):
 *
 * <ul>
 *   <li>an RS256 JWT signed by a key of the tenant's JWKS, fetched and cached by nimbus-jose-jwt;
 *       through a JWKS outage the last good keys are kept for {@link #OUTAGE_TOLERANCE};
 *   <li>the issuer one of the tenant's: v1 ({@code https://sts.windows.net/<tenant>/}, what {@code
 *       az account get-access-token} gets for an App ID URI) or v2 ({@code
 *       https://login.microsoftonline.com/<tenant>/v2.0});
 *   <li>the audience one of those configured: the API's App ID URI (v1 tokens carry it) and its
 *       client id (v2 tokens carry the GUID);
 *   <li>an access token, never an ID token: it carries {@code appidacr} (v1) or {@code azpacr}
 *       (v2), which only access tokens have, and none of an ID token's {@code nonce}, {@code
 *       at_hash}, {@code c_hash};
 *   <li>not expired, an {@code oid}, and one of the app roles {@code Fleet.Read} or {@code
 *       Fleet.Approve}.
 * </ul>
 *
 * The principal is recorded by its object id, with its name beside it: {@code alice@contoso.com
 * (oid)} for a user ({@code preferred_username}, {@code upn}, {@code unique_name}), {@code <client
 * id> (oid)} for an application ({@code azp}, {@code appid}).
 */
public final class EntraTokens implements Authenticator {
  public static final String READ_ROLE = "Fleet.Read";
  public static final String APPROVE_ROLE = "Fleet.Approve";

  /** How long the last good signing keys are used while the JWKS cannot be read. */
  public static final Duration OUTAGE_TOLERANCE = Duration.ofDays(1);

  private static final Logger LOG = LoggerFactory.getLogger(EntraTokens.class);
  private static final Set<String> ID_TOKEN_CLAIMS = Set.of("nonce", "at_hash", "c_hash");

  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
  private final Set<String> issuers;

  /** The tenant's two issuers (v1 and v2). */
  public static Set<String> issuersOf(String tenant) {
    return Set.of(
        "https://sts.windows.net/" + tenant + "/",
        "https://login.microsoftonline.com/" + tenant + "/v2.0");
  }

  public EntraTokens(URI jwks, Set<String> issuers, Set<String> audiences) {
    this(jwks, issuers, audiences, JWKSourceBuilder.DEFAULT_CACHE_TIME_TO_LIVE);
  }

  /**
   * @param cacheMillis how long fetched keys are used before they are fetched again
   */
  EntraTokens(URI jwks, Set<String> issuers, Set<String> audiences, long cacheMillis) {
    this.issuers = Set.copyOf(issuers);
    JWKSource<SecurityContext> keys;
    try {
      // Production: fetched keys used 5 min and refreshed ahead, at most one fetch in 30 s (tokens
      // with unknown key ids cannot hammer the tenant). A test's shorter cache goes without the
      // refresh-ahead and the rate limit, which need 45 s.
      boolean shortCache = cacheMillis < JWKSourceBuilder.DEFAULT_CACHE_TIME_TO_LIVE;
      keys =
          JWKSourceBuilder.<SecurityContext>create(jwks.toURL())
              .cache(
                  cacheMillis,
                  shortCache ? cacheMillis / 2 : JWKSourceBuilder.DEFAULT_CACHE_REFRESH_TIMEOUT)
              .refreshAheadCache(!shortCache)
              .rateLimited(!shortCache)
              .retrying(true)
              .outageTolerant(OUTAGE_TOLERANCE.toMillis())
              .build();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("bad JWKS URL " + jwks, e);
    }
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, keys));
    processor.setJWTClaimsSetVerifier(
        new DefaultJWTClaimsVerifier<>(
            Set.copyOf(audiences), null, Set.of("exp", "iat", "iss", "oid"), ID_TOKEN_CLAIMS));
  }

  @Override
  public Optional<Principal> authenticate(String bearerToken) {
    if (bearerToken.chars().filter(c -> c == '.').count() != 2) {
      return Optional.empty();
    }
    JWTClaimsSet claims;
    try {
      claims = processor.process(bearerToken, null);
    } catch (Exception e) {
      LOG.debug("refused a token: {}", e.getMessage());
      return Optional.empty();
    }
    if (!issuers.contains(claims.getIssuer())) {
      LOG.debug("refused a token of issuer {}", claims.getIssuer());
      return Optional.empty();
    }
    if (claims.getClaim("azpacr") == null && claims.getClaim("appidacr") == null) {
      LOG.debug("refused a token that is not an access token (no azpacr or appidacr)");
      return Optional.empty();
    }
    Principal.Role role = role(claims);
    String oid = string(claims, "oid");
    if (role == null || oid == null) {
      return Optional.empty();
    }
    // A user's token (delegated: it has scopes) is named by the user, never by the client app it
    // came through (the Azure CLI's id would name every user alike); an application's by its id.
    boolean user = claims.getClaim("scp") != null || "user".equals(string(claims, "idtyp"));
    List<String> names =
        user
            ? List.of("preferred_username", "upn", "unique_name")
            : List.of("preferred_username", "upn", "unique_name", "azp", "appid");
    String name = null;
    for (String c : names) {
      name = string(claims, c);
      if (name != null) {
        break;
      }
    }
    String tenant = string(claims, "tid");
    return Optional.of(
        new Principal(
            name == null ? oid : name + " (" + oid + ")",
            role,
            "entra:" + (tenant == null ? "" : tenant + ":") + oid,
            claims.getExpirationTime() == null ? null : claims.getExpirationTime().toInstant()));
  }

  private static Principal.Role role(JWTClaimsSet claims) {
    Set<String> roles = new HashSet<>();
    try {
      List<String> r = claims.getStringListClaim("roles");
      if (r != null) {
        roles.addAll(r);
      }
    } catch (java.text.ParseException e) {
      return null;
    }
    return roles.contains(APPROVE_ROLE)
        ? Principal.Role.APPROVER
        : roles.contains(READ_ROLE) ? Principal.Role.READER : null;
  }

  private static String string(JWTClaimsSet claims, String name) {
    return claims.getClaim(name) instanceof String s && !s.isBlank() ? s : null;
  }
}
