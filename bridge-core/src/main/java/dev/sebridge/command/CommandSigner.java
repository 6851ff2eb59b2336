package dev.sebridge.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.Ed25519Signer;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Builds signed approval commands ({@code sebridge approve}, tests). */
public final class CommandSigner {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final JWSSigner signer;
  private final JWSAlgorithm algorithm;
  private final String keyId;
  private final String issuer;

  /**
   * @param key a private EC P-256 (ES256) or Ed25519 (EdDSA) JWK with a kid
   */
  public CommandSigner(JWK key, String issuer) {
    if (!key.isPrivate() || key.getKeyID() == null) {
      throw new IllegalArgumentException("signing needs a private JWK with a kid");
    }
    this.algorithm = key instanceof OctetKeyPair ? JWSAlgorithm.EdDSA : JWSAlgorithm.ES256;
    try {
      this.signer =
          key instanceof OctetKeyPair okp ? new Ed25519Signer(okp) : new ECDSASigner((ECKey) key);
    } catch (JOSEException e) {
      throw new IllegalArgumentException("cannot sign with this key: " + e.getMessage(), e);
    }
    this.keyId = key.getKeyID();
    this.issuer = issuer;
  }

  /**
   * A signer whose private key lives elsewhere (Azure Key Vault): {@code signer} produces the JWS
   * signature for {@code algorithm} (ES256 or EdDSA) with the key named {@code keyId}.
   */
  public CommandSigner(JWSSigner signer, JWSAlgorithm algorithm, String keyId, String issuer) {
    if (!JWSAlgorithm.ES256.equals(algorithm) && !JWSAlgorithm.EdDSA.equals(algorithm)) {
      throw new IllegalArgumentException("commands are signed with ES256 or EdDSA only");
    }
    this.signer = signer;
    this.algorithm = algorithm;
    this.keyId = keyId;
    this.issuer = issuer;
  }

  /**
   * What to approve.
   *
   * @param counted the VM names the issuer counted as made unavailable by each event's approval, by
   *     EventId (the {@code resources} claim: the agent refuses an event whose Resources list
   *     another VM); empty: no such claim
   */
  public record Request(
      String vmId,
      List<String> eventIds,
      String requestedBy,
      String reason,
      Instant issuedAt,
      Duration ttl,
      Map<String, List<String>> counted) {
    public Request {
      counted = counted == null ? Map.of() : Map.copyOf(counted);
    }

    /** A request without the {@code resources} claim. */
    public Request(
        String vmId,
        List<String> eventIds,
        String requestedBy,
        String reason,
        Instant issuedAt,
        Duration ttl) {
      this(vmId, eventIds, requestedBy, reason, issuedAt, ttl, Map.of());
    }
  }

  /** The command as CloudEvents JSON, ready to publish keyed by the vmId; a random id. */
  public byte[] sign(Request r) {
    return sign(r, UUID.randomUUID().toString());
  }

  /** The command with the given id (the {@code jti}): deterministic ids make retries safe. */
  public byte[] sign(Request r, String id) {
    JWTClaimsSet.Builder claims =
        new JWTClaimsSet.Builder()
            .jwtID(id)
            .issuer(issuer)
            .audience(r.vmId())
            .issueTime(Date.from(r.issuedAt()))
            .notBeforeTime(Date.from(r.issuedAt()))
            .expirationTime(Date.from(r.issuedAt().plus(r.ttl())))
            .claim("eventIds", r.eventIds())
            .claim("requestedBy", r.requestedBy())
            .claim("reason", r.reason() == null ? "" : r.reason());
    if (!r.counted().isEmpty()) {
      claims.claim("resources", new java.util.TreeMap<>(r.counted()));
    }
    try {
      SignedJWT jwt =
          new SignedJWT(new JWSHeader.Builder(algorithm).keyID(keyId).build(), claims.build());
      jwt.sign(signer);
      // 1.1 adds the optional resources claim: a command without it is as 1.0 described it
      return envelope(
          id,
          r.vmId(),
          r.eventIds().get(0),
          r.issuedAt(),
          jwt.serialize(),
          r.counted().isEmpty() ? "1.0" : "1.1");
    } catch (JOSEException e) {
      throw new IllegalStateException("cannot sign the command: " + e.getMessage(), e);
    }
  }

  /** Wraps a compact JWS (or anything, for tests) into the command's CloudEvent. */
  public static byte[] envelope(String id, String vmId, String subject, Instant time, String data) {
    return envelope(id, vmId, subject, time, data, "1.0");
  }

  private static byte[] envelope(
      String id, String vmId, String subject, Instant time, String data, String version) {
    ObjectNode ce = JSON.createObjectNode();
    ce.put("specversion", "1.0");
    ce.put("id", id);
    ce.put("source", "urn:sebridge:approve");
    ce.put("type", CommandVerifier.TYPE);
    ce.put("subject", subject);
    ce.put("time", time.toString());
    ce.put("datacontenttype", "application/jose");
    ce.put("dataschema", "urn:sebridge:schema:command:approve:" + version);
    ce.put("partitionkey", vmId);
    ce.put("data", data);
    return ce.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The command id of a signed command's CloudEvent. */
  public static String commandId(byte[] command) {
    try {
      return JSON.readTree(command).get("id").asText();
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
