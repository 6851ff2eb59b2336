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
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Microsoft Entra ID access tokens: an RS256 JWT signed by a key of the tenant's JWKS (fetched and
 * cached by nimbus-jose-jwt), with the expected issuer and audience, not expired, and one of the
 * app roles {@code Fleet.Read} or {@code Fleet.Approve}. The principal is the user's name ({@code
 * preferred_username}, {@code upn}) or, for an application, its id ({@code azp}, {@code appid}).
 */
public final class EntraTokens implements Authenticator {
  public static final String READ_ROLE = "Fleet.Read";
  public static final String APPROVE_ROLE = "Fleet.Approve";
  private static final Logger LOG = LoggerFactory.getLogger(EntraTokens.class);

  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

  public EntraTokens(URI jwks, String issuer, String audience) {
    JWKSource<SecurityContext> keys;
    try {
      keys = JWKSourceBuilder.create(jwks.toURL()).retrying(true).build();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("bad JWKS URL " + jwks, e);
    }
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, keys));
    processor.setJWTClaimsSetVerifier(
        new DefaultJWTClaimsVerifier<>(
            Set.of(audience),
            new JWTClaimsSet.Builder().issuer(issuer).build(),
            Set.of("exp", "iat"),
            null));
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
    Set<String> roles = new HashSet<>();
    try {
      List<String> r = claims.getStringListClaim("roles");
      if (r != null) {
        roles.addAll(r);
      }
    } catch (java.text.ParseException e) {
      return Optional.empty();
    }
    Principal.Role role =
        roles.contains(APPROVE_ROLE)
            ? Principal.Role.APPROVER
            : roles.contains(READ_ROLE) ? Principal.Role.READER : null;
    if (role == null) {
      return Optional.empty();
    }
    String name = null;
    for (String c : List.of("preferred_username", "upn", "azp", "appid", "oid", "sub")) {
      Object v = claims.getClaim(c);
      if (v instanceof String s && !s.isBlank()) {
        name = s;
        break;
      }
    }
    return name == null ? Optional.empty() : Optional.of(new Principal(name, role));
  }
}
