package dev.sebridge.app.fleet;

import java.util.UUID;
import picocli.CommandLine.Option;

/**
 * {@code --idempotency-key}, shared by the client commands that write: one key per run, sent with
 * every try of the run ({@link FleetClient#post}), so the service makes one request however many
 * tries reach it; a failed run prints it for the next run to retry the same request.
 */
final class IdempotencyKeyOption {
  @Option(
      names = "--idempotency-key",
      paramLabel = "KEY",
      description =
          "The request's Idempotency-Key (default: a new one per run). Every retry of this run"
              + " sends the same key; give the key a failed run printed to retry that request.")
  String key = UUID.randomUUID().toString();
}
