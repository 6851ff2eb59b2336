package dev.sebridge.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.TestKeys;
import dev.sebridge.command.Verdict;
import dev.sebridge.config.ConfigLoader;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.config.KeyCatalog;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.MalformedDocumentException;
import dev.sebridge.imds.ScheduledEventsDocument;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Fuzz tests of everything that reads outside input: the IMDS document parser, the command
 * verifier, the configuration loader. Each may refuse an input only the documented way (a
 * MalformedDocumentException, a rejected Verdict, a list of problems); any other exception or error
 * is a crash. {@code ./mvnw verify} replays the inputs under {@code
 * src/test/resources/dev/sebridge/fuzz/ParsersFuzzTestInputs/}; {@code scripts/fuzz.sh} fuzzes.
 */
@Isolated("Jazzer instruments the JVM")
class ParsersFuzzTest {
  static final JWK KEY = TestKeys.es256("fuzz-key");
  static final String VM_ID = "66666666-0000-4000-8000-000000000000";
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T10:00:00Z"), ZoneOffset.UTC);
  static final CommandVerifier VERIFIER = new CommandVerifier(TestKeys.trusting(KEY), VM_ID, CLOCK);
  static final KeyCatalog CATALOG = new KeyCatalog(CoreKeys.all());

  @FuzzTest(maxDuration = "10s")
  void imdsDocument(byte[] body) {
    ScheduledEventsDocument doc;
    try {
      doc = DocumentParser.parse(body);
    } catch (MalformedDocumentException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    // A document that parses is usable: every event has an id and a status, and is keyed.
    doc.events()
        .forEach(
            e -> {
              assertThat(e.eventId()).isNotBlank();
              assertThat(e.key()).isNotBlank();
            });
  }

  @FuzzTest(maxDuration = "10s")
  void command(FuzzedDataProvider data) throws Exception {
    byte[] payload;
    if (data.consumeBoolean()) {
      // A validly signed command whose claims the fuzzer chose: the checks behind the signature.
      long now = CLOCK.instant().getEpochSecond();
      Map<String, Object> claims = new LinkedHashMap<>();
      claims.put("jti", data.consumeString(40));
      claims.put("iss", data.consumeString(20));
      claims.put("aud", data.consumeBoolean() ? VM_ID : data.consumeString(40));
      claims.put("iat", now + data.consumeInt(-1000, 1000));
      claims.put("nbf", now + data.consumeInt(-1000, 1000));
      claims.put("exp", now + data.consumeInt(-1000, 2000));
      claims.put("eventIds", List.of(data.consumeString(40), data.consumeString(40)));
      int n = data.consumeInt(0, 4);
      for (int i = 0; i < n; i++) {
        String name = data.pickValue(List.of("jti", "aud", "iat", "eventIds", "requestedBy", "x"));
        switch (data.consumeInt(0, 3)) {
          case 0 -> claims.put(name, data.consumeString(64));
          case 1 -> claims.put(name, data.consumeLong());
          case 2 -> claims.put(name, List.of());
          default -> claims.remove(name);
        }
      }
      JWTClaimsSet set;
      try {
        set = JWTClaimsSet.parse(claims);
      } catch (java.text.ParseException e) {
        return; // not representable as a JWT: nothing to sign
      }
      SignedJWT jwt =
          new SignedJWT(
              new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(KEY.getKeyID()).build(), set);
      jwt.sign(new ECDSASigner((ECKey) KEY));
      payload =
          CommandSigner.envelope(
              data.consumeString(40),
              data.consumeBoolean() ? VM_ID : data.consumeString(40),
              data.consumeString(40),
              CLOCK.instant(),
              jwt.serialize());
    } else {
      payload = data.consumeRemainingAsBytes();
    }
    Verdict v = VERIFIER.verify(payload);
    assertThat(v).isNotNull();
  }

  @FuzzTest(maxDuration = "10s")
  void configuration(FuzzedDataProvider data) throws IOException {
    Path dir = Files.createTempDirectory("fuzz-config");
    try {
      boolean yaml = data.consumeBoolean();
      List<String> sets = new ArrayList<>();
      int n = data.consumeInt(0, 3);
      for (int i = 0; i < n; i++) {
        sets.add(data.consumeString(60));
      }
      Map<String, String> env =
          Map.of("SEBRIDGE_" + data.consumeString(20), data.consumeString(40));
      Path file = dir.resolve(yaml ? "sebridge.yaml" : "sebridge.properties");
      Files.write(file, data.consumeRemainingAsBytes());
      ConfigLoader.Result r = new ConfigLoader(CATALOG).read(file, env, sets);
      assertThat(r).isNotNull();
      r.problems().forEach(p -> assertThat(p.key()).isNotNull());
    } finally {
      try (var files = Files.list(dir)) {
        for (Path p : files.toList()) {
          Files.delete(p);
        }
      }
      Files.delete(dir);
    }
  }
}
