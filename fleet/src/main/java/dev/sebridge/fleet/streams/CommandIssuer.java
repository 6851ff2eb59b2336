package dev.sebridge.fleet.streams;

import dev.sebridge.command.CommandSigner;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.model.ApprovalRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Signs the commands an approval request sends, one per VM (the command contract of
 * docs/schemas.md: {@code aud} the vmId, lifetime at most 10 minutes, {@code requestedBy} the
 * approver). A request's commands are signed in parallel: ECDSA costs about a millisecond each, and
 * with Key Vault each signature is a round trip to the vault.
 */
public final class CommandIssuer implements AutoCloseable {
  /** Signatures in flight at once (Key Vault's per-vault limits are far above this). */
  static final int PARALLEL = 16;

  private final CommandSigner signer;
  private final Duration lifetime;
  private final ExecutorService pool =
      Executors.newFixedThreadPool(PARALLEL, DaemonThreads.named("fleet-signer"));

  public CommandIssuer(CommandSigner signer, Duration lifetime) {
    if (lifetime.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("a command lives at most 10 minutes");
    }
    this.signer = signer;
    this.lifetime = lifetime;
  }

  /** How long a command it signs is valid. */
  Duration lifetime() {
    return lifetime;
  }

  /** The commands for every VM of the request, in the request's order. */
  List<byte[]> commands(ApprovalRequest r, Instant issuedAt) {
    List<CompletableFuture<byte[]>> signing = new ArrayList<>();
    for (String vmId : r.vmIds()) {
      signing.add(
          CompletableFuture.supplyAsync(
              () -> command(r, vmId, ApprovalRequest.commandId(r.requestId(), vmId), issuedAt),
              pool));
    }
    return signing.stream().map(CompletableFuture::join).toList();
  }

  /**
   * Signs {@code n} throwaway commands in the background, so the signing code is compiled before a
   * large approval (right after a start or a failover) needs it. For local keys only: with Key
   * Vault each would be a billed call.
   */
  public void warmUp(int n) {
    ApprovalRequest r =
        new ApprovalRequest(
            "warm-up",
            "warm-up",
            java.util.stream.IntStream.range(0, n).mapToObj(i -> "warm-up-" + i).toList(),
            "warm-up",
            "sebridge-fleet",
            Instant.EPOCH,
            "warm-up");
    CompletableFuture.runAsync(() -> commands(r, Instant.now()), pool);
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }

  byte[] command(ApprovalRequest r, String vmId, String commandId, Instant issuedAt) {
    return signer.sign(
        new CommandSigner.Request(
            vmId, java.util.List.of(r.eventId()), r.requestedBy(), r.reason(), issuedAt, lifetime),
        commandId);
  }
}
