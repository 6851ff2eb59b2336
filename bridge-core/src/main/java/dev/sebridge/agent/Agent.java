package dev.sebridge.agent;

import dev.sebridge.approval.ApprovalPolicy;
import dev.sebridge.approval.ApprovalService;
import dev.sebridge.approval.ApprovalSettings;
import dev.sebridge.command.CommandSourceCatalog;
import dev.sebridge.command.TrustedKeys;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.concurrent.Deadline;
import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsClient;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.outbox.EnvelopePublisher;
import dev.sebridge.outbox.Outbox;
import dev.sebridge.outbox.OutboxSettings;
import dev.sebridge.sink.SinkCatalog;
import dev.sebridge.spi.CommandSourceProvider;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.SinkContext;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent: builds its components, starts them in order and stops them in reverse. What each one
 * owns is on the architecture page (docs/architecture.md):
 *
 * <pre>
 * IMDS -> MetadataPoller -> EventPipeline (tracker.json) -> Outbox (outbox/) -> sinks
 * commands -> CommandPump (commands/) -> ApprovalService -> POST StartRequests
 *                                      \-> result envelopes -> Outbox;  approvals -> EventPipeline
 * </pre>
 */
public final class Agent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  private final Configuration config;
  private final Clock clock;
  private final StateDirectory state;
  private final Imds imds;
  private final AgentMetrics metrics;
  private final PollStats stats;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("sebridge-scheduler"));
  private final EnvelopePublisher publisher;
  private final Outbox outbox;
  private final VmIdentityResolver identity;
  private final EventPipeline pipeline;
  private final PolicyApprover policy;
  private final CommandPump pump;
  private final Heartbeats heartbeats;
  private final MetadataPoller poller;
  private final Readiness readiness;
  private HealthEndpoint http;
  private volatile boolean closing;

  Agent(AgentBuilder b) {
    this.config = b.config;
    this.clock = b.clock;
    this.metrics = AgentMetrics.forHttpPort(config.get(CoreKeys.HTTP_PORT));
    this.stats = new PollStats(metrics);
    ApprovalSettings approvalSettings = ApprovalSettings.from(config);
    Optional<CommandSourceProvider> commands = CommandSourceCatalog.discover().selected(config);
    TrustedKeys keys = commands.isPresent() ? TrustedKeys.fromConfig(config) : null;
    this.state = StateDirectory.open(config.get(CoreKeys.STATE_DIR), clock);
    List<EventSink> sinks = new ArrayList<>();
    Outbox made = null;
    try {
      sinks.addAll(SinkCatalog.discover().create(new SinkContext(config, state.path(), clock)));
      sinks.addAll(b.extraSinks);
      this.outbox =
          made =
              b.publisher != null
                  ? null
                  : new Outbox(
                      state,
                      sinks,
                      OutboxSettings.from(config),
                      clock,
                      metrics.registry(),
                      b.crashPoints);
      sinks.clear(); // the outbox owns them now
      this.publisher = b.publisher != null ? b.publisher : outbox;
      AgentContext ctx =
          new AgentContext(
              config,
              clock,
              state,
              new EnvelopeFactory(b.agentInfo, clock),
              publisher,
              metrics,
              b.crashPoints);
      this.imds = b.imds != null ? b.imds : ImdsClient.from(config);
      this.identity = VmIdentityResolver.create(imds, config, scheduler);
      Duration imdsTimeout = config.get(CoreKeys.IMDS_REQUEST_TIMEOUT);
      CompletableFuture<ApprovalService> approvals =
          identity
              .identity()
              .thenApply(vm -> new ApprovalService(imds, imdsTimeout, approvalSettings, vm));
      this.policy =
          approvalSettings.anyPolicy()
              ? new PolicyApprover(ctx, new ApprovalPolicy(approvalSettings), approvals)
              : null;
      this.pipeline = new EventPipeline(ctx, identity::now, policy, stats);
      this.pump =
          commands.map(p -> CommandPump.create(ctx, p, keys, approvals, pipeline)).orElse(null);
      this.heartbeats = new Heartbeats(ctx, stats, pipeline::knownEvents);
      this.readiness =
          new Readiness(
              () -> identity.now().isPresent(),
              stats,
              config.get(CoreKeys.IMDS_POLL_INTERVAL),
              clock,
              pump == null
                  ? List.of(publisher::problems)
                  : List.of(publisher::problems, pump::problems));
      this.poller = MetadataPoller.create(imds, pipeline, stats, clock, config);
    } catch (RuntimeException e) {
      sinks.forEach(s -> s.close(Duration.ofSeconds(1)));
      if (made != null) {
        made.close(Duration.ZERO);
      }
      state.close();
      throw e;
    }
  }

  public static AgentBuilder builder(Configuration config) {
    return new AgentBuilder(config);
  }

  /** Starts everything and returns at once; a failure leaves the agent to be closed. */
  public Agent start() {
    int port = config.get(CoreKeys.HTTP_PORT);
    if (port > 0) {
      String address = config.get(CoreKeys.HTTP_BIND_ADDRESS);
      try {
        http = new HealthEndpoint(address, port, this::readinessProblems, metrics::scrape);
      } catch (IOException e) {
        throw new ConfigException(
            CoreKeys.HTTP_PORT.name(), "cannot listen on " + address + ":" + port + ": " + e);
      }
    }
    identity.start();
    if (policy != null) {
      policy.recover(identity.identity(), pipeline);
    }
    heartbeats.start(identity.identity(), scheduler);
    poller.start();
    if (pump != null) {
      pump.start();
    }
    LOG.info(
        "sebridge agent started: IMDS {} every {}, state in {}",
        imds.scheduledEventsUri(),
        config.get(CoreKeys.IMDS_POLL_INTERVAL),
        state.path());
    return this;
  }

  List<String> readinessProblems() {
    return readiness.problems();
  }

  /** Stops polling and commands, flushes the sinks (bounded by agent.shutdown-timeout). */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    // One deadline for the whole stop: each step gets what the ones before it left.
    Duration timeout = config.get(CoreKeys.SHUTDOWN_TIMEOUT);
    Deadline deadline = Deadline.after(timeout);
    poller.stop(deadline.remaining());
    if (pump != null) {
      pump.close(Duration.ofMillis(Math.min(5000, deadline.remaining().toMillis())));
    }
    if (policy != null) {
      policy.close();
    }
    scheduler.shutdownNow();
    identity.close();
    publisher.close(deadline.remaining());
    if (http != null) {
      http.close();
    }
    state.close();
    LOG.info("sebridge agent stopped");
  }

  public int httpPort() {
    return http == null ? 0 : http.port();
  }

  public Optional<java.net.InetAddress> httpAddress() {
    return Optional.ofNullable(http).map(HealthEndpoint::address);
  }

  /** DocumentIncarnation of the last document fully processed (envelopes durable), or -1. */
  public long committedIncarnation() {
    return pipeline.committedIncarnation();
  }

  /** The outbox (absent when a test replaced the publisher). */
  public Optional<Outbox> outbox() {
    return Optional.ofNullable(outbox);
  }

  public PollStats stats() {
    return stats;
  }

  public Optional<VmIdentity> identity() {
    return identity.now();
  }

  /** Commands handled (results durable) since start. */
  public long commandsHandled() {
    return pump == null ? 0 : pump.handled();
  }
}
