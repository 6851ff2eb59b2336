package dev.sebridge.command;

import java.time.Instant;
import java.util.List;

/** A command whose signature, audience and time claims hold: only its claims are trusted. */
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
    String reason) {}
