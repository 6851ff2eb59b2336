package dev.sebridge.command;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A command whose signature, audience and time claims hold: only its claims are trusted.
 *
 * @param counted its optional {@code resources} claim: for each EventId it names (in lower case),
 *     the VM names (in lower case) its issuer counted as made unavailable by approving it; empty
 *     when the claim is absent
 */
public record VerifiedCommand(
    String commandId,
    String keyId,
    String issuer,
    String audience,
    Instant issuedAt,
    Instant notBefore,
    Instant expiresAt,
    List<String> eventIds,
    String requestedBy,
    String reason,
    Map<String, Set<String>> counted) {
  public VerifiedCommand {
    counted = counted == null ? Map.of() : Map.copyOf(counted);
  }
}
