package dev.sebridge.fleet.streams;

import dev.sebridge.command.CommandSigner;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.model.ApprovalRequest;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Signs the commands an approval request sends, one per VM (the command contract of
 * docs/schemas.md: {@code aud} the vmId, lifetime at most 10 minutes, {@code requestedBy} the
 * approver). A request's commands are signed in parallel: ECDSA costs about a millisecond each, and
 * with Key Vault each signature is a round trip to the vault.
 *
 * <p>The stream thread waits for a request's signatures at most {@link #DEADLINE}: a vault that
 * hangs fails the request ("not sent", said in its view) instead of holding the thread past the
 * exactly-once transaction's timeout, where the task would be fenced, restored and given the same
 * request again, for ever. One deadline missed opens a circuit breaker (resilience4j): the requests
 * after it fail at once, not a deadline each (several request partitions share one transaction),
 * and one request tries the vault again {@link #RETRY_AFTER} later. A vault that answers with an
 * error fails its request and opens nothing. And a vault that is slow but answers spends at most
 * {@link #BUDGET} in any {@link #WINDOW} ({@link SigningBudget}): a request past it fails at once,
 * so no transaction spends more than that signing.
 */
public final class CommandIssuer implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(CommandIssuer.class);

  /** Signatures in flight at once (Key Vault's per-vault limits are far above this). */
  static final int PARALLEL = 16;

  /**
   * How long the stream thread waits for one request's signatures: half the transaction timeout
   * ({@code FleetStreamsConfig}), so the rest of the step still fits.
   */
  public static final Duration DEADLINE = Duration.ofSeconds(5);

  /** How long signing is not tried after a missed deadline. */
  static final Duration RETRY_AFTER = Duration.ofSeconds(30);

  /** Signing time at most in any {@link #WINDOW}: half the transaction timeout. */
  static final Duration BUDGET = Duration.ofSeconds(5);

  /** The transaction timeout ({@code FleetStreamsConfig}). */
  static final Duration WINDOW = Duration.ofSeconds(10);

  private final CommandSigner signer;
  private final Duration lifetime;
  private final Duration deadline;
  private final CircuitBreaker vault;
  private final SigningBudget budget;
  private final ExecutorService pool =
      Executors.newFixedThreadPool(PARALLEL, DaemonThreads.named("fleet-signer"));

  /** The warm-up's own thread ({@link #warmUp}): never a place in the signing pool's queue. */
  private final ExecutorService warming =
      Executors.newSingleThreadExecutor(DaemonThreads.named("fleet-signer-warm-up"));

  public CommandIssuer(CommandSigner signer, Duration lifetime) {
    this(signer, lifetime, DEADLINE);
  }

  /**
   * @param deadline how long a request's signatures may take ({@link #DEADLINE})
   */
  public CommandIssuer(CommandSigner signer, Duration lifetime, Duration deadline) {
    this(signer, lifetime, deadline, new SigningBudget(WINDOW, BUDGET, System::nanoTime));
  }

  CommandIssuer(CommandSigner signer, Duration lifetime, Duration deadline, SigningBudget budget) {
    if (lifetime.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("a command lives at most 10 minutes");
    }
    this.signer = signer;
    this.lifetime = lifetime;
    this.deadline = deadline;
    this.budget = budget;
    this.vault =
        CircuitBreaker.of(
            "fleet-signer",
            CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(1)
                .minimumNumberOfCalls(1)
                .failureRateThreshold(100)
                .permittedNumberOfCallsInHalfOpenState(1)
                .waitDurationInOpenState(RETRY_AFTER)
                .recordException(e -> e instanceof SigningTimedOut)
                .build());
  }

  /** Signing took longer than the deadline. */
  static final class SigningTimedOut extends IllegalStateException {
    SigningTimedOut(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** How long a command it signs is valid. */
  Duration lifetime() {
    return lifetime;
  }

  /**
   * The commands for every VM of the request, in the request's order.
   *
   * @throws IllegalStateException when they are not all signed within the deadline (the others are
   *     cancelled), or a signature failed
   */
  List<byte[]> commands(ApprovalRequest r, Instant issuedAt) {
    Duration left = budget.left();
    if (left.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalStateException(
          "signing took " + BUDGET + " of the last " + WINDOW + " already; ask again");
    }
    if (!vault.tryAcquirePermission()) {
      throw new IllegalStateException(
          "signing missed its deadline of "
              + deadline
              + " lately; tried again at most "
              + RETRY_AFTER
              + " after that");
    }
    long start = budget.now();
    try {
      boolean shortened = left.compareTo(deadline) < 0;
      List<byte[]> out = sign(r, issuedAt, shortened ? left : deadline, shortened);
      vault.onSuccess(budget.now() - start, TimeUnit.NANOSECONDS);
      return out;
    } catch (Throwable e) {
      vault.onError(budget.now() - start, TimeUnit.NANOSECONDS, e);
      throw e;
    } finally {
      budget.spend(start);
    }
  }

  /**
   * @param shortened the deadline is what is left of the budget: missing it is the budget spent,
   *     not a vault that hangs (the breaker does not count it)
   */
  private List<byte[]> sign(
      ApprovalRequest r, Instant issuedAt, Duration deadline, boolean shortened) {
    List<CompletableFuture<byte[]>> signing = new ArrayList<>();
    java.util.Map<String, java.util.List<String>> claim = ResourcesClaim.of(r); // once a request
    for (String vmId : r.vmIds()) {
      signing.add(
          CompletableFuture.supplyAsync(
              () ->
                  command(r, claim, vmId, ApprovalRequest.commandId(r.requestId(), vmId), issuedAt),
              pool));
    }
    try {
      CompletableFuture.allOf(signing.toArray(CompletableFuture[]::new))
          .get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      signing.forEach(f -> f.cancel(false));
      String took = "signing " + r.vmIds().size() + " command(s) took longer than " + deadline;
      if (shortened) {
        throw new IllegalStateException(
            took + ", what was left of " + BUDGET + " in " + WINDOW + "; ask again", e);
      }
      throw new SigningTimedOut(took, e);
    } catch (ExecutionException e) {
      signing.forEach(f -> f.cancel(false));
      Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
      throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      signing.forEach(f -> f.cancel(false));
      throw new IllegalStateException("interrupted while signing", e);
    }
    return signing.stream().map(CompletableFuture::join).toList();
  }

  /**
   * Signs {@code n} throwaway commands in the background, so the signing code is compiled before a
   * large approval (right after a start or a failover) needs it. For local keys only: with Key
   * Vault each would be a billed call. One after another on a thread of its own: a request made
   * meanwhile signs on the pool at once, its deadline never spent waiting behind them (until
   * 2026-11-28 they went through the pool, and a request right after a start queued behind up to
   * {@code n} of them), and the warm-up takes at most one core from a start.
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
    // Not through commands(): a warm-up neither opens the breaker nor spends the budget.
    Instant at = Instant.now();
    warming.execute(
        () -> {
          try {
            for (int i = 0; i < n && !Thread.currentThread().isInterrupted(); i++) {
              String vmId = r.vmIds().get(i);
              command(r, java.util.Map.of(), vmId, ApprovalRequest.commandId("warm-up", vmId), at);
            }
          } catch (RuntimeException e) { // a key that cannot sign: each request will say so too
            LOG.warn("signing warm-up stopped: {}", e.toString());
          }
        });
  }

  @Override
  public void close() {
    pool.shutdownNow();
    warming.shutdownNow();
  }

  /** One VM's command of a request, with its {@code resources} claim ({@link ResourcesClaim}). */
  byte[] command(
      ApprovalRequest r,
      java.util.Map<String, java.util.List<String>> claim,
      String vmId,
      String commandId,
      Instant issuedAt) {
    return signer.sign(
        new CommandSigner.Request(
            vmId,
            java.util.List.of(r.eventId()),
            r.requestedBy(),
            r.reason(),
            issuedAt,
            lifetime,
            claim),
        commandId);
  }
}
