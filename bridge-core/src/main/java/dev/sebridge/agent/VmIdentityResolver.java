package dev.sebridge.agent;

import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.config.VmKeys;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.imds.IdentitySources;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.SmbiosUuid;
import dev.sebridge.imds.VmIdentity;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the VM's identity once, for everyone: from {@code vm.id} and {@code vm.name} when both
 * are set, otherwise from {@code /metadata/instance/compute}, retried with exponential backoff and
 * jitter (1 s to 1 min) until it answers. Where compute metadata is not served (Microsoft's mock
 * server answers 404: after {@link #FALLBACK_AT_ATTEMPT_NOT_SERVED} attempts; an image that blocks
 * IMDS, any other failure: after {@link #FALLBACK_AT_ATTEMPT}, some five minutes) the vmId is the
 * SMBIOS system UUID ({@link SmbiosUuid}) and the name the host name, unless configured, for as
 * long as the agent runs; if they cannot be read either, it keeps asking IMDS (and SMBIOS).
 * Heartbeats say which source was used. Nothing is published before it is known: the event pipeline
 * skips documents until then, the command pump and heartbeats wait on {@link #identity()}.
 */
final class VmIdentityResolver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VmIdentityResolver.class);
  static final int WARN_AT_ATTEMPT = 5;

  /** Attempts after which a 404 (compute metadata not served: the mock server) falls back. */
  static final int FALLBACK_AT_ATTEMPT_NOT_SERVED = 5;

  /**
   * Attempts after which any other failure (an image that blocks IMDS, an outage) falls back: about
   * five minutes, so that an IMDS slow at boot is waited for.
   */
  static final int FALLBACK_AT_ATTEMPT = 10;

  private final Imds imds;
  private final Optional<String> vmId;
  private final Optional<String> vmName;
  private final Duration timeout;
  private final Duration later;
  private final java.util.concurrent.atomic.AtomicInteger asked =
      new java.util.concurrent.atomic.AtomicInteger();
  private final Duration firstBackoff;
  private final SmbiosUuid smbios;
  private final Supplier<String> hostName;
  private final ScheduledExecutorService scheduler;
  private final CompletableFuture<VmIdentity> identity = new CompletableFuture<>();

  VmIdentityResolver(
      Imds imds,
      Optional<String> vmId,
      Optional<String> vmName,
      Duration timeout,
      Duration later,
      Duration firstBackoff,
      SmbiosUuid smbios,
      Supplier<String> hostName,
      ScheduledExecutorService scheduler) {
    this.imds = imds;
    this.vmId = vmId;
    this.vmName = vmName;
    this.timeout = timeout;
    this.later = later;
    this.firstBackoff = firstBackoff;
    this.smbios = smbios;
    this.hostName = hostName;
    this.scheduler = scheduler;
  }

  /**
   * A resolver reading {@code vm.id}, {@code vm.name}, {@code imds.first-request-timeout} (the
   * first question) and {@code imds.request-timeout} (those after it).
   */
  static VmIdentityResolver create(
      Imds imds, Configuration config, ScheduledExecutorService scheduler) {
    return new VmIdentityResolver(
        imds,
        config.find(VmKeys.VM_ID),
        config.find(VmKeys.VM_NAME),
        config.get(CoreKeys.IMDS_FIRST_REQUEST_TIMEOUT),
        config.get(CoreKeys.IMDS_REQUEST_TIMEOUT),
        Duration.ofSeconds(1),
        SmbiosUuid.forThisMachine(
            config.get(VmKeys.VM_SMBIOS_UUID_FILE),
            SmbiosUuid.Order.parse(config.get(VmKeys.VM_SMBIOS_UUID_ORDER)).orElseThrow()),
        AgentInfo::localHostName,
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
      identity.complete(
          VmIdentity.of(vmId.get(), vmName.get())
              .withSources(
                  new IdentitySources(
                      IdentitySources.VmIdSource.CONFIG, IdentitySources.NameSource.CONFIG)));
      return;
    }
    Retry retry =
        Retry.of(
            "vm-identity",
            RetryConfig.<ImdsResult<VmIdentity>>custom()
                .maxAttempts(Integer.MAX_VALUE)
                .intervalFunction(
                    IntervalFunction.ofExponentialRandomBackoff(
                        firstBackoff, 2.0, 0.5, Duration.ofMinutes(1)))
                .retryOnResult(
                    r -> r instanceof ImdsResult.Failed<VmIdentity> && !identity.isDone())
                .consumeResultBeforeRetryAttempt(this::logFailure)
                .failAfterMaxAttempts(false)
                .build());
    retry
        .executeCompletionStage(
            scheduler,
            () ->
                CompletableFuture.supplyAsync(
                    // The first question may wait as long as IMDS's first answer can take; the
                    // others as long as any request: a compute endpoint that accepts and never
                    // answers held each of ten attempts for the first's 150 s (some 29 minutes
                    // before the fallback, envelopes waiting).
                    () -> imds.identity(asked.getAndIncrement() == 0 ? timeout : later), scheduler))
        .thenAccept(
            r -> {
              if (r instanceof ImdsResult.Ok<VmIdentity> ok) {
                VmIdentity merged = merge(ok.value());
                if (identity.complete(merged)) {
                  LOG.info(
                      "VM identity: {} ({}), {}", merged.name(), merged.vmId(), merged.source());
                }
              }
            });
  }

  private void logFailure(int attempt, ImdsResult<VmIdentity> r) {
    var f = ((ImdsResult.Failed<VmIdentity>) r).failure();
    int fallbackAt =
        f.kind() == ImdsFailure.Kind.NOT_FOUND
            ? FALLBACK_AT_ATTEMPT_NOT_SERVED
            : FALLBACK_AT_ATTEMPT;
    if (attempt >= fallbackAt) {
      // Tried again at every attempt from here (SMBIOS or the host name may not be there yet).
      Optional<VmIdentity> fallback = fromSmbios();
      if (fallback.isPresent() && identity.complete(fallback.get())) {
        VmIdentity v = fallback.get();
        LOG.warn(
            "cannot read the VM identity from IMDS ({}, {} attempts); using vmId {} ({}) and name"
                + " {} ({}) for as long as this agent runs. Set vm.id and vm.name if they are not"
                + " Azure's",
            f,
            attempt,
            v.vmId(),
            v.sources().vmId().wire(),
            v.name(),
            v.sources().name().wire());
        return;
      }
    }
    if (attempt == WARN_AT_ATTEMPT || attempt == fallbackAt) {
      LOG.warn(
          "cannot read the VM identity from IMDS yet ({}){}; envelopes wait for it. Set vm.id and"
              + " vm.name where compute metadata is unavailable",
          f,
          attempt >= fallbackAt ? ", nor the SMBIOS UUID or the host name" : "");
    } else {
      LOG.info("reading the VM identity failed ({}), retrying", f);
    }
  }

  /** The identity without IMDS: vm.id or SMBIOS, vm.name or the host name. */
  Optional<VmIdentity> fromSmbios() {
    Optional<SmbiosUuid.Found> found = vmId.isPresent() ? Optional.empty() : smbios.vmId();
    if (vmId.isEmpty() && found.isEmpty()) {
      return Optional.empty();
    }
    String host = vmName.isPresent() ? null : hostName.get();
    if (vmName.isEmpty() && (host == null || host.isBlank() || host.equals("unknown"))) {
      return Optional.empty();
    }
    return Optional.of(
        VmIdentity.of(vmId.orElseGet(() -> found.get().vmId()), vmName.orElseGet(() -> host))
            .withSources(
                sources(
                    found.map(SmbiosUuid.Found::source).orElse(null),
                    IdentitySources.NameSource.HOSTNAME)));
  }

  /** Where the identity came from: configuration where vm.id or vm.name is set, else these. */
  private IdentitySources sources(IdentitySources.VmIdSource id, IdentitySources.NameSource name) {
    return new IdentitySources(
        vmId.isPresent() ? IdentitySources.VmIdSource.CONFIG : id,
        vmName.isPresent() ? IdentitySources.NameSource.CONFIG : name);
  }

  private VmIdentity merge(VmIdentity v) {
    IdentitySources from = v.sources() == null ? IdentitySources.IMDS : v.sources();
    return new VmIdentity(
        vmId.orElse(v.vmId()),
        vmName.orElse(v.name()),
        v.resourceId(),
        v.subscriptionId(),
        v.resourceGroupName(),
        v.location(),
        v.zone(),
        v.vmScaleSetName(),
        v.osType(),
        sources(from.vmId(), from.name()));
  }

  /** Stops trying; whoever waits for the identity gets a {@link CancellationException}. */
  @Override
  public void close() {
    identity.cancel(false);
  }
}
