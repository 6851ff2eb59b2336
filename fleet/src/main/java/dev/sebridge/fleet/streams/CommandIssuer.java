package dev.sebridge.fleet.streams;

import dev.sebridge.command.CommandSigner;
import dev.sebridge.fleet.model.ApprovalRequest;
import java.time.Duration;
import java.time.Instant;

/**
 * Signs the command an approval request sends to one VM (the command contract of docs/schemas.md:
 * {@code aud} the vmId, lifetime at most 10 minutes, {@code requestedBy} the approver).
 */
public final class CommandIssuer {
  private final CommandSigner signer;
  private final Duration lifetime;

  public CommandIssuer(CommandSigner signer, Duration lifetime) {
    if (lifetime.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("a command lives at most 10 minutes");
    }
    this.signer = signer;
    this.lifetime = lifetime;
  }

  byte[] command(ApprovalRequest r, String vmId, String commandId, Instant issuedAt) {
    return signer.sign(
        new CommandSigner.Request(
            vmId, java.util.List.of(r.eventId()), r.requestedBy(), r.reason(), issuedAt, lifetime),
        commandId);
  }
}
