package dev.sebridge.fleet.signing;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.FleetKeys;
import dev.sebridge.fleet.OwnerOnly;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The signer of the fleet service's commands, as configured: a private JWK file readable by its
 * owner only, or an Azure Key Vault key (the private part never leaves the vault).
 */
public final class FleetSigner {
  private FleetSigner() {}

  /**
   * @param keyVault how to reach Key Vault: asked only when the key lives there
   */
  public static CommandSigner from(
      Configuration config, java.util.function.Supplier<KeyVaultJwsSigner.Access> keyVault) {
    String issuer = config.get(FleetKeys.SIGNING_ISSUER);
    if (config.isSet(FleetKeys.SIGNING_KEY_FILE)) {
      JWK jwk = readKeyFile(config.get(FleetKeys.SIGNING_KEY_FILE));
      String kid = config.find(FleetKeys.SIGNING_KEY_ID).orElse(jwk.getKeyID());
      if (kid == null) {
        throw new ConfigException(
            FleetKeys.SIGNING_KEY_FILE.name(), "the JWK has no kid (or set fleet.signing.key-id)");
      }
      if (!kid.equals(jwk.getKeyID())) {
        jwk = withKid(jwk, kid);
      }
      try {
        return new CommandSigner(jwk, issuer);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(FleetKeys.SIGNING_KEY_FILE.name(), e.getMessage());
      }
    }
    URI key = config.get(FleetKeys.SIGNING_KEY_VAULT_KEY);
    String[] path = key.getPath().split("/");
    if (path.length < 3 || !path[1].equals("keys")) {
      throw new ConfigException(
          FleetKeys.SIGNING_KEY_VAULT_KEY.name(),
          key + " is not a key identifier (https://<vault>.vault.azure.net/keys/<name>/<version>)");
    }
    String kid = config.find(FleetKeys.SIGNING_KEY_ID).orElse(path[2]);
    return new CommandSigner(
        KeyVaultJwsSigner.create(key, keyVault.get()), JWSAlgorithm.ES256, kid, issuer);
  }

  private static JWK readKeyFile(Path file) {
    String key = FleetKeys.SIGNING_KEY_FILE.name();
    try {
      OwnerOnly.check(file, key);
      JWK jwk = JWK.parse(Files.readString(file, StandardCharsets.UTF_8));
      if (!jwk.isPrivate()) {
        throw new ConfigException(key, file + " holds a public key: signing needs the private JWK");
      }
      return jwk;
    } catch (IOException e) {
      throw new ConfigException(key, "cannot read " + file + ": " + e.getMessage());
    } catch (java.text.ParseException e) {
      throw new ConfigException(key, file + " is not a JWK: " + e.getMessage());
    }
  }

  private static JWK withKid(JWK jwk, String kid) {
    try {
      var json = jwk.toJSONObject();
      json.put("kid", kid);
      return JWK.parse(json);
    } catch (java.text.ParseException e) {
      throw new IllegalStateException(e);
    }
  }
}
