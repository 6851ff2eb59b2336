package dev.sebridge.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObject;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.JWTClaimsSet;
import dev.sebridge.approval.ReasonCode;
import java.io.IOException;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Verifies approval commands (docs/schemas.md, "Approval command"), in this order: the envelope is
 * a command; the algorithm is ES256 or EdDSA; {@code kid} names a trusted key of the matching type
 * and the signature verifies; {@code aud} is this VM; {@code iat}, {@code nbf}, {@code exp} hold
 * with 60 s of skew and {@code exp - iat} is at most 10 minutes. Replay ({@code jti}) and the IMDS
 * checks come after, in the approval service. Nothing outside the signed claims is trusted.
 */
public final class CommandVerifier {
  public static final String TYPE = "dev.sebridge.command.approve.v1";
  public static final int MAX_BYTES = 32 * 1024;
  public static final Duration SKEW = Duration.ofSeconds(60);
  public static final Duration MAX_LIFETIME = Duration.ofMinutes(10);
  private static final Set<JWSAlgorithm> ALLOWED = Set.of(JWSAlgorithm.ES256, JWSAlgorithm.EdDSA);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TrustedKeys keys;
  private final String vmId;
  private final Clock clock;

  public CommandVerifier(TrustedKeys keys, String vmId, Clock clock) {
    this.keys = keys;
    this.vmId = vmId;
    this.clock = clock;
  }

  /**
   * Verifies RFC 7515's ES256 example (appendix A.3) once, so that the first real command does not
   * pay for loading and compiling the JOSE and EC code (about 60 ms on a small VM). Returns whether
   * it verified, which it always should.
   */
  public static boolean warmUp() {
    try {
      JWSObject jws = JWSObject.parse(Rfc7515.ES256_JWS);
      readClaims(jws);
      return jws.verify(new ECDSAVerifier(ECKey.parse(Rfc7515.ES256_KEY)));
    } catch (ParseException | JOSEException e) {
      return false;
    }
  }

  public Verdict verify(byte[] payload) {
    if (payload.length > MAX_BYTES) {
      return reject(
          ReasonCode.OVERSIZED,
          "command of " + payload.length + " bytes (at most " + MAX_BYTES + ")",
          null,
          null);
    }
    JsonNode ce;
    try {
      ce = JSON.readTree(payload);
    } catch (IOException e) {
      return reject(ReasonCode.MALFORMED, "not JSON", null, null);
    }
    if (ce == null || !ce.isObject()) {
      return reject(ReasonCode.MALFORMED, "not a JSON object", null, null);
    }
    String rawId = text(ce, "id");
    String id = Untrusted.text(rawId, Untrusted.ID);
    if (!TYPE.equals(text(ce, "type"))) {
      return reject(ReasonCode.MALFORMED, "type is not " + TYPE, id, null);
    }
    if (rawId == null || rawId.isBlank() || !Untrusted.isPlain(rawId, Untrusted.ID)) {
      return reject(
          ReasonCode.MALFORMED,
          "the id must be 1 to " + Untrusted.ID + " characters without control characters",
          id,
          null);
    }
    String data = text(ce, "data");
    if (data == null) {
      return reject(ReasonCode.UNSIGNED, "data is not a compact JWS", id, null);
    }
    return verifyJws(data, rawId);
  }

  private Verdict verifyJws(String data, String id) {
    JOSEObject jose;
    try {
      jose = JOSEObject.parse(data);
    } catch (ParseException e) {
      return reject(ReasonCode.UNSIGNED, "data is not a compact JWS", id, null);
    }
    if (!(jose instanceof JWSObject jws)) {
      return reject(ReasonCode.ALG_NOT_ALLOWED, "unsigned command (alg none)", id, null);
    }
    JWSHeader header = jws.getHeader();
    String kid = Untrusted.text(header.getKeyID(), Untrusted.KID);
    if (!ALLOWED.contains(header.getAlgorithm())) {
      return reject(
          ReasonCode.ALG_NOT_ALLOWED,
          "algorithm "
              + Untrusted.text(String.valueOf(header.getAlgorithm()), Untrusted.ALG)
              + " is not allowed (ES256, EdDSA)",
          id,
          kid);
    }
    if (header.getCriticalParams() != null && !header.getCriticalParams().isEmpty()) {
      return reject(
          ReasonCode.MALFORMED,
          "unsupported critical header parameters "
              + Untrusted.text(String.join(",", header.getCriticalParams()), Untrusted.ALG),
          id,
          kid);
    }
    JWK key = keys.byKid(header.getKeyID()).orElse(null);
    if (key == null) {
      return reject(
          ReasonCode.UNTRUSTED_KEY,
          kid == null ? "no kid" : "kid '" + kid + "' is not a trusted key",
          id,
          kid);
    }
    // Only rejects, so it may come before the (costlier) signature check: a flood of expired
    // commands is turned away cheaply. Claims that cannot be read wait for the signature check.
    JWTClaimsSet claims = readClaims(jws);
    Date exp = claims == null ? null : claims.getExpirationTime();
    if (exp != null && clock.instant().isAfter(exp.toInstant().plus(SKEW))) {
      return reject(
          ReasonCode.EXPIRED, "expired at " + exp.toInstant() + " (60 s skew allowed)", id, kid);
    }
    try {
      JWSVerifier verifier = verifierFor(header.getAlgorithm(), key);
      if (verifier == null) {
        return reject(
            ReasonCode.UNTRUSTED_KEY,
            "kid '" + kid + "' is not a key for " + header.getAlgorithm(),
            id,
            kid);
      }
      if (!jws.verify(verifier)) {
        return reject(
            ReasonCode.BAD_SIGNATURE, "signature does not verify with kid '" + kid + "'", id, kid);
      }
    } catch (JOSEException | IllegalStateException e) {
      return reject(ReasonCode.BAD_SIGNATURE, "signature does not verify", id, kid);
    }
    if (claims == null) {
      return reject(ReasonCode.MALFORMED, "claims are not a JSON object", id, kid);
    }
    return checkClaims(claims, id, kid);
  }

  private static JWTClaimsSet readClaims(JWSObject jws) {
    try {
      return JWTClaimsSet.parse(jws.getPayload().toJSONObject());
    } catch (ParseException | RuntimeException e) {
      return null;
    }
  }

  private Verdict checkClaims(JWTClaimsSet c, String id, String kid) {
    List<String> aud = c.getAudience();
    if (aud == null || aud.stream().noneMatch(a -> CommandPartitioning.sameVm(a, vmId))) {
      return reject(
          ReasonCode.WRONG_AUDIENCE,
          "aud "
              + Untrusted.text(String.valueOf(aud), Untrusted.PRINCIPAL)
              + " is not this VM ("
              + vmId
              + ")",
          id,
          kid);
    }
    Date iat = c.getIssueTime();
    Date nbf = c.getNotBeforeTime();
    Date exp = c.getExpirationTime();
    if (iat == null || nbf == null || exp == null) {
      return reject(ReasonCode.MALFORMED, "iat, nbf and exp are required", id, kid);
    }
    Instant now = clock.instant();
    if (now.isAfter(exp.toInstant().plus(SKEW))) {
      return reject(
          ReasonCode.EXPIRED, "expired at " + exp.toInstant() + " (60 s skew allowed)", id, kid);
    }
    if (now.isBefore(nbf.toInstant().minus(SKEW)) || now.isBefore(iat.toInstant().minus(SKEW))) {
      return reject(
          ReasonCode.NOT_YET_VALID,
          "not valid before " + nbf.toInstant() + " (60 s skew allowed)",
          id,
          kid);
    }
    if (Duration.between(iat.toInstant(), exp.toInstant()).compareTo(MAX_LIFETIME) > 0) {
      return reject(ReasonCode.LIFETIME_TOO_LONG, "exp - iat is over 10 minutes", id, kid);
    }
    if (!exp.toInstant().isAfter(iat.toInstant())) {
      return reject(ReasonCode.MALFORMED, "exp is not after iat", id, kid);
    }
    String jti = c.getJWTID();
    if (jti == null || !jti.equals(id)) {
      return reject(ReasonCode.MALFORMED, "jti must equal the command id", id, kid);
    }
    List<String> eventIds;
    String requestedBy;
    String reason;
    try {
      eventIds = c.getStringListClaim("eventIds");
      requestedBy = c.getStringClaim("requestedBy");
      reason = c.getStringClaim("reason");
    } catch (ParseException e) {
      return reject(
          ReasonCode.MALFORMED, "eventIds, requestedBy or reason has the wrong type", id, kid);
    }
    if (eventIds == null
        || eventIds.isEmpty()
        || eventIds.size() > 32
        || eventIds.stream()
            .anyMatch(e -> e == null || e.isBlank() || !Untrusted.isPlain(e, Untrusted.EVENT_ID))) {
      return reject(
          ReasonCode.MALFORMED,
          "eventIds must list 1 to 32 EventIds of at most " + Untrusted.EVENT_ID + " characters",
          id,
          kid);
    }
    if (requestedBy == null || requestedBy.isBlank() || c.getIssuer() == null) {
      return reject(ReasonCode.MALFORMED, "iss and requestedBy are required", id, kid);
    }
    Map<String, Set<String>> counted = counted(c, eventIds);
    if (counted == null) {
      return reject(
          ReasonCode.MALFORMED,
          "resources must map EventIds of eventIds to 1 to "
              + MAX_COUNTED
              + " VM names of at most "
              + VM_NAME
              + " characters",
          id,
          kid);
    }
    return new Verdict.Valid(
        new VerifiedCommand(
            id,
            kid,
            Untrusted.text(c.getIssuer(), Untrusted.PRINCIPAL),
            vmId,
            iat.toInstant(),
            nbf.toInstant(),
            exp.toInstant(),
            List.copyOf(eventIds),
            Untrusted.text(requestedBy, Untrusted.PRINCIPAL),
            reason == null ? "" : Untrusted.text(reason, Untrusted.REASON),
            counted));
  }

  /** The most VM names the {@code resources} claim may give one event. */
  public static final int MAX_COUNTED = 1000;

  /** The longest VM name it may give (Azure's are at most 64 characters). */
  public static final int VM_NAME = 80;

  /**
   * The optional {@code resources} claim, by EventId and name in lower case: empty when absent,
   * null when malformed (not an object; a key that is not one of the eventIds; a value that is not
   * a list of 1 to {@link #MAX_COUNTED} plain names).
   */
  private static Map<String, Set<String>> counted(JWTClaimsSet c, List<String> eventIds) {
    Object claim = c.getClaim("resources");
    if (claim == null) {
      return Map.of();
    }
    if (!(claim instanceof Map<?, ?> byEvent)) {
      return null;
    }
    Set<String> ids = new HashSet<>();
    eventIds.forEach(e -> ids.add(e.toLowerCase(Locale.ROOT)));
    Map<String, Set<String>> out = new HashMap<>();
    for (Map.Entry<?, ?> e : byEvent.entrySet()) {
      String eventId = String.valueOf(e.getKey()).toLowerCase(Locale.ROOT);
      if (!ids.contains(eventId)
          || !(e.getValue() instanceof List<?> names)
          || names.isEmpty()
          || names.size() > MAX_COUNTED) {
        return null;
      }
      Set<String> lower = new HashSet<>();
      for (Object n : names) {
        if (!(n instanceof String name) || name.isBlank() || !Untrusted.isPlain(name, VM_NAME)) {
          return null;
        }
        lower.add(name.toLowerCase(Locale.ROOT));
      }
      if (out.put(eventId, lower) != null) {
        return null; // one EventId given twice, in two cases
      }
    }
    return out;
  }

  private static JWSVerifier verifierFor(JWSAlgorithm alg, JWK key) throws JOSEException {
    if (alg.equals(JWSAlgorithm.ES256)
        && key instanceof ECKey ec
        && Curve.P_256.equals(ec.getCurve())) {
      return new ECDSAVerifier(ec);
    }
    if (alg.equals(JWSAlgorithm.EdDSA)
        && key instanceof OctetKeyPair okp
        && Curve.Ed25519.equals(okp.getCurve())) {
      return new Ed25519Verifier(okp);
    }
    return null;
  }

  private static Verdict reject(ReasonCode code, String reason, String id, String kid) {
    return new Verdict.Rejected(code, reason, id, kid);
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v != null && v.isTextual() ? v.asText() : null;
  }
}
