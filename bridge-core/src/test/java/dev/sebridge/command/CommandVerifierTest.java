package dev.sebridge.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.PlainHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.sebridge.schemas.SchemaKind;
import dev.sebridge.schemas.Schemas;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandVerifierTest {
  static final String VM = "5c2e3c9a-0000-4000-8000-000000000000";
  static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
  static final JWK ES = TestKeys.es256("sre-es");
  static final JWK ED = TestKeys.ed25519("sre-ed");
  final CommandVerifier verifier =
      new CommandVerifier(TestKeys.trusting(ES, ED), VM, Clock.fixed(NOW, ZoneOffset.UTC));

  static byte[] signed(JWK key, String vm, Instant iat, Duration ttl) {
    return new CommandSigner(key, "sre-approvals")
        .sign(new CommandSigner.Request(vm, List.of("E-1"), "alice", "CHG-1", iat, ttl));
  }

  static String code(Verdict v) {
    return v instanceof Verdict.Rejected r ? r.reasonCode().label() : "valid";
  }

  @Test
  void theWarmUpVerifiesRfc7515sExample() {
    assertThat(CommandVerifier.warmUp()).isTrue();
  }

  @Test
  void acceptsEs256AndEdDsaCommandsForThisVm() throws Exception {
    Verdict es = verifier.verify(signed(ES, VM, NOW, Duration.ofMinutes(5)));
    assertThat(code(es)).isEqualTo("valid");
    VerifiedCommand c = ((Verdict.Valid) es).command();
    assertThat(c.eventIds()).containsExactly("E-1");
    assertThat(c.requestedBy()).isEqualTo("alice");
    assertThat(c.issuer()).isEqualTo("sre-approvals");
    assertThat(c.keyId()).isEqualTo("sre-es");
    assertThat(code(verifier.verify(signed(ED, VM, NOW, Duration.ofMinutes(10)))))
        .isEqualTo("valid");
    // The command and its claims match the published command schema.
    var json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(signed(ES, VM, NOW, Duration.ofMinutes(5)));
    assertThat(Schemas.validate(SchemaKind.COMMAND, "1.0", json)).isEmpty();
    var claims =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(SignedJWT.parse(json.get("data").asText()).getPayload().toString());
    assertThat(Schemas.validateDefinition(SchemaKind.COMMAND, "1.0", "claims", claims)).isEmpty();
  }

  @Test
  void rejectsUnsignedCommands() {
    byte[] cmd = CommandSigner.envelope("c1", VM, "E-1", NOW, "{\"eventIds\":[\"E-1\"]}");
    assertThat(code(verifier.verify(cmd))).isEqualTo("unsigned");
  }

  @Test
  void rejectsAlgNone() {
    PlainJWT plain = new PlainJWT(new PlainHeader(), claims("c2", VM, NOW, Duration.ofMinutes(5)));
    assertThat(
            code(verifier.verify(CommandSigner.envelope("c2", VM, "E-1", NOW, plain.serialize()))))
        .isEqualTo("alg-not-allowed");
  }

  @Test
  void rejectsHs256SignedWithThePublicKeyAsSecret() throws Exception {
    // The classic algorithm confusion attack: HMAC keyed with the (public) verification key.
    byte[] secret = ES.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8);
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("sre-es").build(),
            claims("c3", VM, NOW, Duration.ofMinutes(5)));
    jwt.sign(new MACSigner(secret));
    assertThat(code(verifier.verify(CommandSigner.envelope("c3", VM, "E-1", NOW, jwt.serialize()))))
        .isEqualTo("alg-not-allowed");
  }

  @Test
  void rejectsAnUntrustedKeyEvenWithATrustedKid() throws Exception {
    JWK impostor = TestKeys.es256("sre-es"); // same kid, other key
    assertThat(code(verifier.verify(signed(impostor, VM, NOW, Duration.ofMinutes(5)))))
        .isEqualTo("bad-signature");
  }

  @Test
  void rejectsAnUnknownKid() {
    assertThat(
            code(
                verifier.verify(
                    signed(TestKeys.es256("stranger"), VM, NOW, Duration.ofMinutes(5)))))
        .isEqualTo("untrusted-key");
  }

  @Test
  void rejectsAKidOfTheWrongKeyType() throws Exception {
    // ES256 header naming the Ed25519 key.
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("sre-ed").build(),
            claims("c4", VM, NOW, Duration.ofMinutes(5)));
    jwt.sign(new ECDSASigner((ECKey) ES));
    assertThat(code(verifier.verify(CommandSigner.envelope("c4", VM, "E-1", NOW, jwt.serialize()))))
        .isEqualTo("untrusted-key");
  }

  @Test
  void rejectsATamperedPayload() {
    String json = new String(signed(ES, VM, NOW, Duration.ofMinutes(5)), StandardCharsets.UTF_8);
    int dot = json.indexOf('.', json.indexOf("\"data\""));
    String tampered = json.substring(0, dot + 1) + "X" + json.substring(dot + 2);
    assertThat(code(verifier.verify(tampered.getBytes(StandardCharsets.UTF_8))))
        .isIn("bad-signature", "unsigned");
  }

  @Test
  void rejectsTheWrongAudience() {
    assertThat(code(verifier.verify(signed(ES, "another-vm", NOW, Duration.ofMinutes(5)))))
        .isEqualTo("wrong-audience");
  }

  @Test
  void checksTimeClaimsWithSixtySecondsOfSkew() {
    assertThat(
            code(
                verifier.verify(
                    signed(ES, VM, NOW.minusSeconds(600 + 59), Duration.ofMinutes(10)))))
        .isEqualTo("valid");
    assertThat(
            code(
                verifier.verify(
                    signed(ES, VM, NOW.minusSeconds(600 + 61), Duration.ofMinutes(10)))))
        .isEqualTo("expired");
    assertThat(code(verifier.verify(signed(ES, VM, NOW.plusSeconds(59), Duration.ofMinutes(5)))))
        .isEqualTo("valid");
    assertThat(code(verifier.verify(signed(ES, VM, NOW.plusSeconds(120), Duration.ofMinutes(5)))))
        .isEqualTo("not-yet-valid");
    assertThat(code(verifier.verify(signed(ES, VM, NOW, Duration.ofMinutes(11)))))
        .isEqualTo("lifetime-too-long");
  }

  @Test
  void rejectsMalformedAndOversizedInput() {
    assertThat(code(verifier.verify("{not json".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("malformed");
    assertThat(code(verifier.verify("[1,2]".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("malformed");
    assertThat(
            code(
                verifier.verify(
                    "{\"type\":\"dev.sebridge.command.approve.v1\"}"
                        .getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("malformed");
    assertThat(code(verifier.verify(new byte[40_000]))).isEqualTo("oversized");
  }

  @Test
  void theResourcesClaimIsReadByEventIdAndNameInLowerCaseAndMatchesTheSchema() throws Exception {
    byte[] cmd =
        new CommandSigner(ES, "sre-fleet")
            .sign(
                new CommandSigner.Request(
                    VM,
                    List.of("E-1"),
                    "alice",
                    "",
                    NOW,
                    Duration.ofMinutes(5),
                    java.util.Map.of("E-1", List.of("Web_0", "web_1"))));
    Verdict v = verifier.verify(cmd);
    assertThat(code(v)).isEqualTo("valid");
    assertThat(((Verdict.Valid) v).command().counted())
        .isEqualTo(java.util.Map.of("e-1", java.util.Set.of("web_0", "web_1")));
    var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(cmd);
    assertThat(json.get("dataschema").asText())
        .isEqualTo("urn:sebridge:schema:command:approve:1.1");
    assertThat(Schemas.validate(SchemaKind.COMMAND, "1.1", json)).isEmpty();
    var claims =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(SignedJWT.parse(json.get("data").asText()).getPayload().toString());
    assertThat(Schemas.validateDefinition(SchemaKind.COMMAND, "1.1", "claims", claims)).isEmpty();
    // Without it, nothing is counted and the command is as 1.0 described it.
    Verdict plain = verifier.verify(signed(ES, VM, NOW, Duration.ofMinutes(5)));
    assertThat(((Verdict.Valid) plain).command().counted()).isEmpty();
  }

  @Test
  void aResourcesClaimThatIsNotAMapOfEventIdsToNamesIsMalformed() throws Exception {
    for (Object bad :
        List.<Object>of(
            List.of("web_0"),
            java.util.Map.of("E-2", List.of("web_0")),
            java.util.Map.of("E-1", List.of()),
            java.util.Map.of("E-1", "web_0"),
            java.util.Map.of("E-1", List.of("web\n_0")),
            java.util.Map.of("E-1", List.of(1)),
            java.util.Map.of("E-1", List.of("web_0"), "e-1", List.of("web_1")))) {
      JWTClaimsSet c =
          new JWTClaimsSet.Builder(claims("c9", VM, NOW, Duration.ofMinutes(5)))
              .claim("resources", bad)
              .build();
      SignedJWT jwt =
          new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("sre-es").build(), c);
      jwt.sign(new ECDSASigner((ECKey) ES));
      assertThat(
              code(verifier.verify(CommandSigner.envelope("c9", VM, "E-1", NOW, jwt.serialize()))))
          .as("resources: %s", bad)
          .isEqualTo("malformed");
    }
  }

  @Test
  void rejectsAJtiThatIsNotTheCommandId() throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("sre-es").build(),
            claims("inner", VM, NOW, Duration.ofMinutes(5)));
    jwt.sign(new ECDSASigner((ECKey) ES));
    assertThat(
            code(verifier.verify(CommandSigner.envelope("outer", VM, "E-1", NOW, jwt.serialize()))))
        .isEqualTo("malformed");
  }

  static JWTClaimsSet claims(String jti, String aud, Instant iat, Duration ttl) {
    return new JWTClaimsSet.Builder()
        .jwtID(jti)
        .issuer("sre-approvals")
        .audience(aud)
        .issueTime(Date.from(iat))
        .notBeforeTime(Date.from(iat))
        .expirationTime(Date.from(iat.plus(ttl)))
        .claim("eventIds", List.of("E-1"))
        .claim("requestedBy", "mallory")
        .claim("reason", "")
        .build();
  }
}
