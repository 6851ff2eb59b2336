package dev.sebridge.agent;

import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.VmIdentity;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the VM's identity once, for everyone: from {@code vm.id} and {@code vm.name} when both
 * are set, otherwise from {@code /metadata/instance/compute}, retried with exponential backoff and
 * jitter (1 s to 1 min) until it answers. Nothing is published before it is known: the event
 * pipeline skips documents until then, the command pump and heartbeats wait on {@link #identity()}.
 */
final class VmIdentityResolver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VmIdentityResolver.class);
  static final int WARN_AT_ATTEMPT = 5;

  private final Imds imds;
  private final Optional<String> vmId;
  private final Optional<String> vmName;
  private final Duration timeout;
  private final ScheduledExecutorService scheduler;
  private final CompletableFuture<VmIdentity> identity = new CompletableFuture<>();

  VmIdentityResolver(
      Imds imds,
      Optional<String> vmId,
      Optional<String> vmName,
      Duration timeout,
      ScheduledExecutorService scheduler) {
    this.imds = imds;
    this.vmId = vmId;
    this.vmName = vmName;
    this.timeout = timeout;
    this.scheduler = scheduler;
  }

  /** A resolver reading {@code vm.id}, {@code vm.name} and {@code imds.first-request-timeout}. */
  static VmIdentityResolver create(
      Imds imds, Configuration config, ScheduledExecutorService scheduler) {
    return new VmIdentityResolver(
        imds,
        config.find(CoreKeys.VM_ID),
        config.find(CoreKeys.VM_NAME),
        config.get(CoreKeys.IMDS_FIRST_REQUEST_TIMEOUT),
        scheduler);
  }

  /** Completes once the identity is known; cancelled when the agent stops first. */
  CompletableFuture<VmIdentity> identity() {
    return identity;
  }

  Optional<VmIdentity> now() {
    return Optional.ofNullable(identity.getNow(null));
  }

  void start() {
    if (vmId.isPresent() && vmName.isPresent()) {
      LOG.info("VM identity from configuration: {} ({})", vmName.get(), vmId.get());
      identity.complete(VmIdentity.of(vmId.get(), vmName.get()));
      return;
    }
    Retry retry =
        Retry.of(
            "vm-identity",
            RetryConfig.<ImdsResult<VmIdentity>>custom()
                .maxAttempts(Integer.MAX_VALUE)
                .intervalFunction(
                    IntervalFunction.ofExponentialRandomBackoff(
                        Duration.ofSeconds(1), 2.0, 0.5, Duration.ofMinutes(1)))
                .retryOnResult(
                    r -> r instanceof ImdsResult.Failed<VmIdentity> && !identity.isDone())
                .consumeResultBeforeRetryAttempt(this::logFailure)
                .failAfterMaxAttempts(false)
                .build());
    retry
        .executeCompletionStage(
            scheduler, () -> CompletableFuture.supplyAsync(() -> imds.identity(timeout), scheduler))
        .thenAccept(
            r -> {
              if (r instanceof ImdsResult.Ok<VmIdentity> ok) {
                VmIdentity merged = merge(ok.value());
                LOG.info("VM identity: {} ({}), {}", merged.name(), merged.vmId(), merged.source());
                identity.complete(merged);
              }
            });
  }

  private void logFailure(int attempt, ImdsResult<VmIdentity> r) {
    var f = ((ImdsResult.Failed<VmIdentity>) r).failure();
    if (attempt == WARN_AT_ATTEMPT) {
      LOG.warn(
          "cannot read the VM identity from IMDS yet ({}); envelopes wait for it. Set vm.id and"
              + " vm.name where compute metadata is unavailable",
          f);
    } else {
      LOG.info("reading the VM identity failed ({}), retrying", f);
    }
  }

  private VmIdentity merge(VmIdentity v) {
    return new VmIdentity(
        vmId.orElse(v.vmId()),
        vmName.orElse(v.name()),
        v.resourceId(),
        v.subscriptionId(),
        v.resourceGroupName(),
        v.location(),
        v.zone(),
        v.vmScaleSetName(),
        v.osType());
  }

  /** Stops trying; whoever waits for the identity gets a {@link CancellationException}. */
  @Override
  public void close() {
    identity.cancel(false);
  }
}
