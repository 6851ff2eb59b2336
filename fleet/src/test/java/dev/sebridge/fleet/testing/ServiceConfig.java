package dev.sebridge.fleet.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fleet service's configuration for a test against one broker: its tokens file (token, principal,
 * role for each) and a signing key written owner-only under {@code work}, the envelopes and
 * commands topics named so, the API on a free loopback port.
 */
public final class ServiceConfig {
  private ServiceConfig() {}

  /**
   * @param tokens each entry's token, principal and role (reader or approver)
   */
  public static Map<String, String> of(
      Path work, String bootstrapServers, int partitions, List<Map<String, String>> tokens)
      throws Exception {
    Path tokensFile = work.resolve("tokens.yaml");
    new ObjectMapper(new YAMLFactory()).writeValue(tokensFile.toFile(), tokens);
    Path key = work.resolve("key.jwk");
    Files.writeString(key, new ECKeyGenerator(Curve.P_256).keyID("k").generate().toJSONString());
    for (Path p : List.of(tokensFile, key)) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
    }
    Map<String, String> c = new HashMap<>();
    c.put("fleet.kafka.bootstrap-servers", bootstrapServers);
    c.put("fleet.topic.envelopes", "envelopes");
    c.put("fleet.topic.commands", "commands");
    c.put("fleet.partitions", Integer.toString(partitions));
    c.put("fleet.replication-factor", "1");
    c.put("fleet.state-dir", work.resolve("state").toString());
    c.put("fleet.http.port", "0");
    c.put("fleet.http.bind-address", "127.0.0.1");
    c.put("fleet.auth.tokens-file", tokensFile.toString());
    c.put("fleet.signing.key-file", key.toString());
    return c;
  }

  /** One token entry. */
  public static Map<String, String> token(String token, String principal, String role) {
    return Map.of("token", token, "principal", principal, "role", role);
  }
}
