package dev.sebridge.fleet.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.TrustedKeys;
import dev.sebridge.command.Verdict;
import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.testing.KeyVaultEndpoint;
import dev.sebridge.simulator.azure.LoopbackTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/** The command signer as configured: a key file, or a Key Vault key over the real SDK. */
class FleetSignerTest {
  @TempDir Path dir;

  static byte[] sign(CommandSigner signer) {
    return signer.sign(
        new CommandSigner.Request(
            "vm-1", List.of("EV-1"), "alice", "patch", Instant.now(), Duration.ofMinutes(5)),
        "fleet:r1:vm-1");
  }

  static Verdict verify(byte[] command, ECKey publicKey) {
    return new CommandVerifier(new TrustedKeys(List.of(publicKey)), "vm-1", Clock.systemUTC())
        .verify(command);
  }

  @Test
  void keyVaultSignsWithoutThePrivateKeyLeavingTheVault() throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).generate();
    try (KeyVaultEndpoint vault = new KeyVaultEndpoint(key, "fleet-signing")) {
      TokenCredential credential =
          request ->
              Mono.just(new AccessToken(KeyVaultEndpoint.TOKEN, OffsetDateTime.now().plusHours(1)));
      Configuration config =
          Configuration.of(Map.of("fleet.signing.key-vault-key", vault.keyId().toString()));
      var http =
          new JdkHttpClientBuilder(
                  java.net.http.HttpClient.newBuilder()
                      .sslContext(LoopbackTls.get().clientContext()))
              .build();
      CommandSigner signer =
          FleetSigner.from(config, () -> new KeyVaultJwsSigner.Access(credential, http, false));
      byte[] command = sign(signer);
      // the agents trust the vault key's public half under the key's name
      Verdict v =
          verify(command, new ECKey.Builder(key.toPublicJWK()).keyID("fleet-signing").build());
      assertThat(v).isInstanceOf(Verdict.Valid.class);
      assertThat(((Verdict.Valid) v).command().commandId()).isEqualTo("fleet:r1:vm-1");
      assertThat(vault.calls()).anyMatch(c -> c.path().endsWith("/sign") && c.authorized());
      // a second command reuses the token and the key: one sign call each
      sign(signer);
      assertThat(vault.calls().stream().filter(c -> c.path().endsWith("/sign") && c.authorized()))
          .hasSize(2);
    }
  }

  @Test
  void aKeyFileMustBeTheOwnersAlone() throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).keyID("fleet-1").generate();
    Path file = dir.resolve("key.jwk");
    Files.writeString(file, key.toJSONString());
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    Configuration config = Configuration.of(Map.of("fleet.signing.key-file", file.toString()));
    assertThatThrownBy(() -> FleetSigner.from(config, () -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("fleet.signing.key-file")
        .hasMessageContaining("chmod 600");

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    byte[] command = sign(FleetSigner.from(config, () -> null));
    assertThat(verify(command, key.toPublicJWK())).isInstanceOf(Verdict.Valid.class);

    Files.writeString(file, key.toPublicJWK().toJSONString());
    assertThatThrownBy(() -> FleetSigner.from(config, () -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("public key");
  }
}
