package dev.sebridge.app;

import com.nimbusds.jose.Algorithm;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.OctetKeyPairGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDate;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sebridge keygen}: a signing key pair for approval commands. */
@Command(
    name = "keygen",
    mixinStandardHelpOptions = true,
    description = {
      "Makes a key pair for signing approval commands: DIR/private.jwk (keep it with the approval"
          + " workflow, never on the VMs) and DIR/public.jwks (give it to the agents as"
          + " commands.trusted-keys)."
    })
final class KeygenCommand implements Callable<Integer> {
  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description = "Where to write the keys.")
  Path out;

  @Option(
      names = "--alg",
      description = "ES256 (P-256) or EdDSA (Ed25519). Default: ${DEFAULT-VALUE}.")
  String alg = "ES256";

  @Option(names = "--kid", description = "Key id (default: sebridge-<date>-<random>).")
  String kid;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    String id =
        kid != null
            ? kid
            : "sebridge-" + LocalDate.now() + "-" + UUID.randomUUID().toString().substring(0, 8);
    JWK key = generate(alg, id);
    if (key == null) {
      spec.commandLine().getErr().println("sebridge keygen: --alg must be ES256 or EdDSA");
      return Main.EXIT_CONFIG;
    }
    Files.createDirectories(out);
    Path priv = out.resolve("private.jwk");
    Path pub = out.resolve("public.jwks");
    if (Files.exists(priv) || Files.exists(pub)) {
      spec.commandLine()
          .getErr()
          .println("sebridge keygen: " + out + " already holds keys; not overwriting them");
      return Main.EXIT_CONFIG;
    }
    Files.writeString(priv, key.toJSONString() + "\n", StandardCharsets.UTF_8);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.setPosixFilePermissions(priv, PosixFilePermissions.fromString("rw-------"));
    }
    Files.writeString(
        pub, new JWKSet(key.toPublicJWK()).toString(true) + "\n", StandardCharsets.UTF_8);
    var o = spec.commandLine().getOut();
    o.println("kid " + id + " (" + alg + ")");
    o.println("private key: " + priv + "  (for sebridge approve --key; keep it secret)");
    o.println("public key set: " + pub + "  (for the agents: commands.trusted-keys)");
    o.flush();
    return 0;
  }

  static JWK generate(String alg, String kid) throws JOSEException {
    if (alg.equalsIgnoreCase("ES256")) {
      return new ECKeyGenerator(Curve.P_256)
          .keyID(kid)
          .keyUse(KeyUse.SIGNATURE)
          .algorithm((Algorithm) JWSAlgorithm.ES256)
          .generate();
    }
    if (alg.equalsIgnoreCase("EdDSA")) {
      return new OctetKeyPairGenerator(Curve.Ed25519)
          .keyID(kid)
          .keyUse(KeyUse.SIGNATURE)
          .algorithm((Algorithm) JWSAlgorithm.EdDSA)
          .generate();
    }
    return null;
  }
}
