package dev.sebridge.agent;

import dev.sebridge.config.CoreKeys;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.outbox.EnvelopePublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@code dev.sebridge.agent.heartbeat.v1} envelope once the VM identity is known and
 * the first poll has ended, then every {@code heartbeat.interval}, so that a central team can find
 * silent agents. Heartbeats are sheddable: the outbox drops them first when it is full.
 */
final class Heartbeats {
  private static final Logger LOG = LoggerFactory.getLogger(Heartbeats.class);

  private final Duration interval;
  private final Instant startedAt;
  private final EnvelopeFactory envelopes;
  private final EnvelopePublisher publisher;
  private final PollStats stats;
  private final IntSupplier knownEvents;
  private final AtomicLong sequence = new AtomicLong();
  private volatile VmIdentity vm;

  Heartbeats(AgentContext ctx, PollStats stats, IntSupplier knownEvents) {
    this.interval = ctx.config().get(CoreKeys.HEARTBEAT_INTERVAL);
    this.startedAt = ctx.clock().instant();
    this.envelopes = ctx.envelopes();
    this.publisher = ctx.publisher();
    this.stats = stats;
    this.knownEvents = knownEvents;
  }

  /**
   * The first heartbeat once the identity is known and the first poll has ended (so it says how
   * that went), or an interval after the identity at the latest (IMDS may take its 2-minute first
   * call allowance); then one per interval.
   */
  void start(CompletableFuture<VmIdentity> identity, ScheduledExecutorService scheduler) {
    identity.thenAccept(
        v -> {
          vm = v;
          java.util.concurrent.atomic.AtomicBoolean started =
              new java.util.concurrent.atomic.AtomicBoolean();
          Runnable first =
              () -> {
                if (started.compareAndSet(false, true)) {
                  beat();
                  scheduler.scheduleAtFixedRate(
                      this::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
                }
              };
          stats.firstPoll().thenRun(() -> scheduler.execute(first));
          scheduler.schedule(first, interval.toMillis(), TimeUnit.MILLISECONDS);
        });
  }

  private void beat() {
    try {
      EnvelopePublisher.Status outbox = publisher.status();
      Envelope hb =
          envelopes.heartbeat(
              new dev.sebridge.envelope.HeartbeatData(
                  sequence.incrementAndGet(),
                  interval,
                  startedAt,
                  stats.polls(),
                  stats.documents(),
                  stats.failuresByClass(),
                  stats.lastSuccess(),
                  stats.lastIncarnation(),
                  knownEvents.getAsInt(),
                  outbox.bytes(),
                  outbox.pendingBySink()),
              vm);
      publisher.publishSheddable(List.of(hb));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("could not publish a heartbeat: {}", e.toString());
    }
  }
}
