package dev.sebridge.fleet.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sebridge.config.ConfigException;
import dev.sebridge.fleet.OwnerOnly;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Bearer tokens from a file, for one machine and the demo: a YAML (or JSON) list of {@code {token,
 * principal, role}}, role {@code reader} or {@code approver}. The file must be readable by its
 * owner only. Tokens are compared as SHA-256 digests, in constant time.
 */
public final class StaticTokens implements Authenticator {
  private final Map<String, Principal> byDigest;

  private StaticTokens(Map<String, Principal> byDigest) {
    this.byDigest = Map.copyOf(byDigest);
  }

  /** Reads the file; a problem is a {@link ConfigException} naming {@code key}. */
  public static StaticTokens load(Path file, String key) {
    try {
      OwnerOnly.check(file, key);
      JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(Files.readAllBytes(file));
      Map<String, Principal> m = new HashMap<>();
      for (JsonNode n : root) {
        String token = n.path("token").asText("");
        String principal = n.path("principal").asText("");
        String role = n.path("role").asText("").toLowerCase(Locale.ROOT);
        if (token.length() < 16 || principal.isBlank()) {
          throw new ConfigException(
              key, "every entry needs a token of 16 characters or more and a principal");
        }
        Principal.Role r =
            switch (role) {
              case "reader" -> Principal.Role.READER;
              case "approver" -> Principal.Role.APPROVER;
              default ->
                  throw new ConfigException(key, "role '" + role + "' is not reader or approver");
            };
        m.put(digest(token), new Principal(principal, r));
      }
      return new StaticTokens(m);
    } catch (IOException e) {
      throw new ConfigException(key, "cannot read " + file + ": " + e.getMessage());
    }
  }

  /** Tokens from a map (tests, the demo). */
  public static StaticTokens of(Map<String, Principal> tokens) {
    Map<String, Principal> m = new HashMap<>();
    tokens.forEach((t, p) -> m.put(digest(t), p));
    return new StaticTokens(m);
  }

  @Override
  public Optional<Principal> authenticate(String bearerToken) {
    String d = digest(bearerToken);
    Principal found = null;
    for (var e : byDigest.entrySet()) {
      if (MessageDigest.isEqual(
          e.getKey().getBytes(StandardCharsets.US_ASCII), d.getBytes(StandardCharsets.US_ASCII))) {
        found = e.getValue();
      }
    }
    return Optional.ofNullable(found);
  }

  private static String digest(String token) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
