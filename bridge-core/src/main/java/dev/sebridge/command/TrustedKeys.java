package dev.sebridge.command;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import dev.sebridge.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public keys allowed to sign commands ({@code commands.trusted-keys}): a JWK set file, or a
 * directory of {@code .json}/{@code .jwk}/{@code .jwks} files (each a JWK or a JWK set). Every key
 * needs a {@code kid}. Private parts, if a file has them, are dropped: the agent only verifies.
 */
public final class TrustedKeys {
  private static final Logger LOG = LoggerFactory.getLogger(TrustedKeys.class);
  private final Map<String, JWK> byKid;

  public TrustedKeys(List<JWK> keys) {
    Map<String, JWK> m = new LinkedHashMap<>();
    for (JWK k : keys) {
      if (k.getKeyID() == null || k.getKeyID().isBlank()) {
        throw new IllegalArgumentException("a trusted key has no kid");
      }
      if (m.putIfAbsent(k.getKeyID(), k.toPublicJWK()) != null) {
        throw new IllegalArgumentException("two trusted keys have kid " + k.getKeyID());
      }
    }
    this.byKid = Map.copyOf(m);
  }

  /** The keys {@code commands.trusted-keys} names: required once a command source is set. */
  public static TrustedKeys fromConfig(dev.sebridge.config.Configuration config) {
    var key = dev.sebridge.config.CoreKeys.COMMANDS_TRUSTED_KEYS;
    return load(
        config
            .find(key)
            .orElseThrow(() -> new ConfigException(key.name(), "is required with commands.source")),
        key.name());
  }

  /** Loads the keys; a problem is a {@link ConfigException} naming {@code key}. */
  public static TrustedKeys load(Path path, String key) {
    List<JWK> keys = new ArrayList<>();
    try {
      if (Files.isDirectory(path)) {
        try (Stream<Path> files = Files.list(path)) {
          for (Path f : files.sorted().toList()) {
            String n = f.getFileName().toString();
            if (n.endsWith(".json") || n.endsWith(".jwk") || n.endsWith(".jwks")) {
              keys.addAll(read(f));
            }
          }
        }
      } else {
        keys.addAll(read(path));
      }
      if (keys.isEmpty()) {
        throw new ConfigException(key, path + " holds no key");
      }
      if (keys.stream().anyMatch(JWK::isPrivate)) {
        LOG.warn(
            "{} holds private key material; only the public parts are used. Keep private keys off the VMs.",
            path);
      }
      return new TrustedKeys(keys);
    } catch (IOException e) {
      throw new ConfigException(key, "cannot read " + path + ": " + e.getMessage());
    } catch (ParseException | IllegalArgumentException e) {
      throw new ConfigException(key, path + " is not a JWK or JWK set: " + e.getMessage());
    }
  }

  private static List<JWK> read(Path f) throws IOException, ParseException {
    String text = Files.readString(f, StandardCharsets.UTF_8);
    if (text.contains("\"keys\"")) {
      return JWKSet.parse(text).getKeys();
    }
    return List.of(JWK.parse(text));
  }

  public Optional<JWK> byKid(String kid) {
    return Optional.ofNullable(kid == null ? null : byKid.get(kid));
  }

  public int size() {
    return byKid.size();
  }
}
