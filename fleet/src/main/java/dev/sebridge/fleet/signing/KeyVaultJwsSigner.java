package dev.sebridge.fleet.signing;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.security.keyvault.keys.cryptography.CryptographyClient;
import com.azure.security.keyvault.keys.cryptography.CryptographyClientBuilder;
import com.azure.security.keyvault.keys.cryptography.models.SignResult;
import com.azure.security.keyvault.keys.cryptography.models.SignatureAlgorithm;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.util.Base64URL;
import java.net.URI;
import java.util.Set;

/**
 * Signs commands with an Azure Key Vault key: the JWS signing input is hashed here (SHA-256) and
 * Key Vault signs the digest ({@code CryptographyClient.signData}, ES256), so the private key never
 * leaves the vault. Key Vault returns an ES256 signature as R || S, which is the JWS form.
 */
public final class KeyVaultJwsSigner implements JWSSigner {
  private final CryptographyClient client;
  private final JCAContext jca = new JCAContext();

  public KeyVaultJwsSigner(CryptographyClient client) {
    this.client = client;
  }

  /**
   * How to reach Key Vault.
   *
   * @param credential the service's identity (managed identity in Azure)
   * @param http the HTTP client, or null for the SDK's default
   * @param verifyChallengeResource false only for a loopback test endpoint, whose host is not a
   *     vault's (production always checks the authentication challenge names the vault's domain)
   */
  public record Access(
      TokenCredential credential, HttpClient http, boolean verifyChallengeResource) {}

  /** A signer for the key {@code keyId} (https://vault/keys/name/version). */
  public static KeyVaultJwsSigner create(URI keyId, Access access) {
    CryptographyClientBuilder b =
        new CryptographyClientBuilder()
            .keyIdentifier(keyId.toString())
            .credential(access.credential());
    if (access.http() != null) {
      b.httpClient(access.http());
    }
    if (!access.verifyChallengeResource()) {
      b.disableChallengeResourceVerification();
    }
    return new KeyVaultJwsSigner(b.buildClient());
  }

  @Override
  public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
    if (!JWSAlgorithm.ES256.equals(header.getAlgorithm())) {
      throw new JOSEException("Key Vault signs ES256 commands only");
    }
    try {
      SignResult r = client.signData(SignatureAlgorithm.ES256, signingInput);
      return Base64URL.encode(r.getSignature());
    } catch (RuntimeException e) {
      throw new JOSEException("Key Vault did not sign: " + e.getMessage(), e);
    }
  }

  @Override
  public Set<JWSAlgorithm> supportedJWSAlgorithms() {
    return Set.of(JWSAlgorithm.ES256);
  }

  @Override
  public JCAContext getJCAContext() {
    return jca;
  }
}
