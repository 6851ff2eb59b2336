package dev.sebridge.command;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.OctetKeyPairGenerator;
import java.util.List;

/** Keys for command tests. */
public final class TestKeys {
  private TestKeys() {}

  public static JWK es256(String kid) {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  public static JWK ed25519(String kid) {
    try {
      return new OctetKeyPairGenerator(Curve.Ed25519).keyID(kid).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A JWK set with the public parts of the keys, as {@code commands.trusted-keys} reads it. */
  public static String trustedSet(JWK... keys) {
    return new com.nimbusds.jose.jwk.JWKSet(
            java.util.Arrays.stream(keys).map(JWK::toPublicJWK).toList())
        .toString();
  }

  public static TrustedKeys trusting(JWK... keys) {
    return new TrustedKeys(List.of(keys));
  }
}
