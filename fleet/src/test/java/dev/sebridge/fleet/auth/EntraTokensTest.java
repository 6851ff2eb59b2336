package dev.sebridge.fleet.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.sebridge.config.ConfigException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Microsoft Entra ID tokens checked against a tenant's JWKS, served here over HTTP as
 * login.microsoftonline.com serves it; and the static tokens file.
 */
class EntraTokensTest {
  static final String TENANT = "11111111-2222-3333-4444-555555555555";
  static final String ISSUER = "https://login.microsoftonline.com/" + TENANT + "/v2.0";
  static final String AUDIENCE = "api://sebridge-fleet";
  static final String CLIENT_ID = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
  static final String V1_ISSUER = "https://sts.windows.net/" + TENANT + "/";
  static final String OID = "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0";
  static final String ENTRA_ID = "entra:" + TENANT + ":" + OID;

  /** While true the tenant's JWKS answers 503 (an outage). */
  static volatile boolean outage;

  static final java.util.concurrent.atomic.AtomicInteger fetches =
      new java.util.concurrent.atomic.AtomicInteger();

  static RSAKey tenantKey;
  static HttpServer jwks;
  static EntraTokens entra;

  @TempDir Path dir;

  @BeforeAll
  static void startTenant() throws Exception {
    tenantKey = new RSAKeyGenerator(2048).keyID("tenant-key-1").generate();
    byte[] body = new JWKSet(tenantKey.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
    jwks = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    jwks.createContext(
        "/" + TENANT + "/discovery/v2.0/keys",
        ex -> {
          fetches.incrementAndGet();
          if (outage) {
            ex.sendResponseHeaders(503, -1);
            ex.close();
            return;
          }
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    jwks.start();
    entra = new EntraTokens(jwksUri(), EntraTokens.issuersOf(TENANT), Set.of(AUDIENCE, CLIENT_ID));
  }

  static URI jwksUri() {
    return URI.create(
        "http://127.0.0.1:" + jwks.getAddress().getPort() + "/" + TENANT + "/discovery/v2.0/keys");
  }

  @AfterAll
  static void stopTenant() {
    jwks.stop(0);
  }

  static JWTClaimsSet.Builder claims() {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .issuer(ISSUER)
        .audience(AUDIENCE)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(3600)))
        .claim("ver", "2.0")
        .claim("tid", TENANT)
        .claim("oid", OID)
        .claim("azp", "5e6f7a8b-0000-4000-8000-00000000c11e")
        .claim("azpacr", "0")
        .claim("preferred_username", "alice@contoso.com");
  }

  /** A v1 access token, as az account get-access-token --resource api://... gets it. */
  static JWTClaimsSet.Builder v1Claims() {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .issuer(V1_ISSUER)
        .audience(AUDIENCE)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(3600)))
        .claim("ver", "1.0")
        .claim("tid", TENANT)
        .claim("oid", OID)
        .claim("appid", "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
        .claim("appidacr", "0")
        .claim("upn", "alice@contoso.com")
        .claim("unique_name", "alice@contoso.com");
  }

  static String signed(JWTClaimsSet c, RSAKey key) throws Exception {
    SignedJWT jwt =
        new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), c);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  /** The principal of a token, its expiry left out (checked on its own below). */
  java.util.Optional<Principal> auth(String token) {
    return entra
        .authenticate(token)
        .map(
            p -> {
              assertThat(p.expiresAt()).as("the token's exp").isNotNull();
              return new Principal(p.name(), p.role(), p.id());
            });
  }

  @Test
  void aPrincipalExpiresWithItsToken() throws Exception {
    Instant exp =
        Instant.now().plusSeconds(1800).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    Principal p =
        entra
            .authenticate(
                signed(
                    claims()
                        .expirationTime(Date.from(exp))
                        .claim("roles", List.of("Fleet.Read"))
                        .build(),
                    tenantKey))
            .orElseThrow();
    assertThat(p.expiresAt()).isEqualTo(exp);
    assertThat(p.expired(exp.minusSeconds(1))).isFalse();
    assertThat(p.expired(exp)).isTrue();
  }

  @Test
  void appRolesMakeReadersAndApprovers() throws Exception {
    assertThat(auth(signed(claims().claim("roles", List.of("Fleet.Approve")).build(), tenantKey)))
        .contains(
            new Principal("alice@contoso.com (" + OID + ")", Principal.Role.APPROVER, ENTRA_ID));
    assertThat(auth(signed(claims().claim("roles", List.of("Fleet.Read")).build(), tenantKey)))
        .contains(
            new Principal("alice@contoso.com (" + OID + ")", Principal.Role.READER, ENTRA_ID));
    // an application (client credentials) is named by its client id
    JWTClaimsSet app =
        claims()
            .claim("preferred_username", null)
            .claim("azp", "ci-pipeline-app")
            .claim("roles", List.of("Fleet.Approve"))
            .build();
    assertThat(auth(signed(app, tenantKey)).map(Principal::name))
        .contains("ci-pipeline-app (" + OID + ")");
  }

  @Test
  void v1AndV2AccessTokensAreTakenWithEitherAudienceAndAnIdTokenNever() throws Exception {
    // v1: issuer sts.windows.net, aud the App ID URI (az account get-access-token --resource)
    assertThat(auth(signed(v1Claims().claim("roles", List.of("Fleet.Approve")).build(), tenantKey)))
        .contains(
            new Principal("alice@contoso.com (" + OID + ")", Principal.Role.APPROVER, ENTRA_ID));
    // v2: aud the client id GUID
    assertThat(
            auth(
                signed(
                    claims().audience(CLIENT_ID).claim("roles", List.of("Fleet.Read")).build(),
                    tenantKey)))
        .contains(
            new Principal("alice@contoso.com (" + OID + ")", Principal.Role.READER, ENTRA_ID));
    // An ID token of the API's own registration: same issuer, aud the client id, the user's app
    // roles, signed by the tenant; no azpacr, a nonce.
    JWTClaimsSet idToken =
        claims()
            .audience(CLIENT_ID)
            .claim("azp", null)
            .claim("azpacr", null)
            .claim("nonce", "n-0S6_WzA2Mj")
            .claim("roles", List.of("Fleet.Approve"))
            .build();
    assertThat(auth(signed(idToken, tenantKey))).isEmpty();
    JWTClaimsSet idTokenWithoutNonce =
        claims()
            .audience(CLIENT_ID)
            .claim("azp", null)
            .claim("azpacr", null)
            .claim("roles", List.of("Fleet.Approve"))
            .build();
    assertThat(auth(signed(idTokenWithoutNonce, tenantKey))).isEmpty();
    // an access token with an ID token's claim
    assertThat(
            auth(
                signed(
                    claims().claim("at_hash", "x").claim("roles", List.of("Fleet.Read")).build(),
                    tenantKey)))
        .isEmpty();
    // no oid
    assertThat(
            auth(
                signed(
                    claims().claim("oid", null).claim("roles", List.of("Fleet.Read")).build(),
                    tenantKey)))
        .isEmpty();
    // a v1 token of another tenant
    assertThat(
            auth(
                signed(
                    v1Claims()
                        .issuer("https://sts.windows.net/other/")
                        .claim("roles", List.of("Fleet.Read"))
                        .build(),
                    tenantKey)))
        .isEmpty();
  }

  @Test
  void oneUserIsOnePrincipalForKeysWhateverTheTokenVersionOrTheirNameAndNeverTheirClientApp()
      throws Exception {
    Principal v1 =
        entra
            .authenticate(
                signed(
                    v1Claims()
                        .claim("upn", "alice.old@contoso.com")
                        .claim("scp", "user_impersonation")
                        .claim("roles", List.of("Fleet.Approve"))
                        .build(),
                    tenantKey))
            .orElseThrow();
    Principal v2 =
        entra
            .authenticate(
                signed(claims().claim("roles", List.of("Fleet.Approve")).build(), tenantKey))
            .orElseThrow();
    assertThat(v1.name()).isEqualTo("alice.old@contoso.com (" + OID + ")");
    assertThat(v2.name()).isEqualTo("alice@contoso.com (" + OID + ")");
    // idempotency keys and rate limits: one principal
    assertThat(v1.id()).isEqualTo(v2.id()).isEqualTo("entra:" + TENANT + ":" + OID);
    // a user's token without a name claim is named by the user's object id, not the Azure CLI's
    Principal nameless =
        entra
            .authenticate(
                signed(
                    v1Claims()
                        .claim("upn", null)
                        .claim("unique_name", null)
                        .claim("scp", "user_impersonation")
                        .claim("roles", List.of("Fleet.Read"))
                        .build(),
                    tenantKey))
            .orElseThrow();
    assertThat(nameless.name()).isEqualTo(OID);
  }

  @Test
  void theLastGoodKeysAreKeptThroughAJwksOutage() throws Exception {
    EntraTokens shortCache =
        new EntraTokens(jwksUri(), EntraTokens.issuersOf(TENANT), Set.of(AUDIENCE, CLIENT_ID), 200);
    String token = signed(claims().claim("roles", List.of("Fleet.Read")).build(), tenantKey);
    assertThat(shortCache.authenticate(token)).isPresent();
    outage = true;
    try {
      int before = fetches.get();
      // The cache expires within 200 ms; from then on each check tries the JWKS, which fails, and
      // the token is still accepted with the keys last read.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .pollInterval(java.time.Duration.ofMillis(100))
          .until(
              () -> {
                assertThat(shortCache.authenticate(token)).isPresent();
                return fetches.get() > before;
              });
      assertThat(shortCache.authenticate(token)).isPresent();
    } finally {
      outage = false;
    }
  }

  @Test
  void everythingElseIsRefused() throws Exception {
    RSAKey stranger = new RSAKeyGenerator(2048).keyID("tenant-key-1").generate();
    List<String> refused =
        List.of(
            signed(claims().build(), tenantKey), // no role
            signed(claims().claim("roles", List.of("Other.Role")).build(), tenantKey),
            signed(
                claims().audience("api://other").claim("roles", List.of("Fleet.Approve")).build(),
                tenantKey),
            signed(
                claims()
                    .issuer("https://login.microsoftonline.com/other/v2.0")
                    .claim("roles", List.of("Fleet.Approve"))
                    .build(),
                tenantKey),
            signed(
                claims()
                    .expirationTime(Date.from(Instant.now().minusSeconds(600)))
                    .claim("roles", List.of("Fleet.Approve"))
                    .build(),
                tenantKey),
            signed(
                claims().claim("roles", List.of("Fleet.Approve")).build(),
                stranger), // same kid, wrong key
            hs256(claims().claim("roles", List.of("Fleet.Approve")).build()),
            "not.a.jwt",
            "garbage");
    for (String token : refused) {
      assertThat(auth(token)).as(token).isEqualTo(Optional.empty());
    }
  }

  static String hs256(JWTClaimsSet c) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), c);
    jwt.sign(new MACSigner("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8)));
    return jwt.serialize();
  }

  @Test
  void staticTokensComeFromAFileOnlyItsOwnerReads() throws Exception {
    Path file = dir.resolve("tokens.yaml");
    Files.writeString(
        file,
        "- {token: approver-token-0123456789, principal: alice, role: approver}\n"
            + "- {token: reader-token-0123456789ab, principal: grafana, role: reader}\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    assertThatThrownBy(() -> StaticTokens.load(file, "fleet.auth.tokens-file"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("fleet.auth.tokens-file")
        .hasMessageContaining("chmod 600");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    StaticTokens tokens = StaticTokens.load(file, "fleet.auth.tokens-file");
    assertThat(tokens.authenticate("approver-token-0123456789"))
        .contains(new Principal("alice", Principal.Role.APPROVER));
    assertThat(tokens.authenticate("reader-token-0123456789ab"))
        .contains(new Principal("grafana", Principal.Role.READER));
    assertThat(tokens.authenticate("approver-token-012345678")).isEmpty();

    Files.writeString(file, "- {token: short, principal: x, role: approver}\n");
    assertThatThrownBy(() -> StaticTokens.load(file, "fleet.auth.tokens-file"))
        .hasMessageContaining("16 characters");
    Files.writeString(file, "- {token: approver-token-0123456789, principal: x, role: admin}\n");
    assertThatThrownBy(() -> StaticTokens.load(file, "fleet.auth.tokens-file"))
        .hasMessageContaining("admin");
  }
}
