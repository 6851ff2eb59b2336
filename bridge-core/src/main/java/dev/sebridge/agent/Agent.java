package dev.sebridge.agent;

import dev.sebridge.approval.ApprovalService;
import dev.sebridge.approval.ApprovalSettings;
import dev.sebridge.command.CommandSource;
import dev.sebridge.command.CommandSourceCatalog;
import dev.sebridge.command.CommandSourceProvider;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.ReceivedCommand;
import dev.sebridge.command.ReplayCache;
import dev.sebridge.command.TrustedKeys;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.ImdsClient;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.outbox.Outbox;
import dev.sebridge.outbox.OutboxSettings;
import dev.sebridge.sink.EventSink;
import dev.sebridge.sink.SinkCatalog;
import dev.sebridge.sink.SinkContext;
import dev.sebridge.state.StateDirectory;
import dev.sebridge.track.EventTracker;
import dev.sebridge.track.TrackerState;
import dev.sebridge.track.TrackerStateCodec;
import dev.sebridge.track.Transition;
import io.github.resilience4j.core.IntervalFunction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent: polls IMDS, tracks events, publishes envelopes, keeps its state durable.
 *
 * <pre>
 * IMDS --GET--> MetadataPoller --document--> EventTracker --transitions--> EnvelopeFactory
 *                                                 |                              |
 *                                         state.dir/tracker.json      Outbox (durable) -> sinks
 * </pre>
 *
 * A document is committed (tracker state written) only after its envelopes are durable in the
 * outbox; the outbox hands them to each sink and forgets them only once every sink confirmed. The
 * VM identity is read from IMDS in the background; documents are not processed before it is known,
 * so no envelope ever goes out without its partition key.
 */
public final class Agent implements AutoCloseable {
  static final String TRACKER_FILE = "tracker.json";
  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  private final Configuration config;
  private final Clock clock;
  private final StateDirectory state;
  private final ImdsClient imds;
  private final EventTracker tracker;
  private final EnvelopeFactory envelopes;
  private final EnvelopePublisher publisher;
  private final AgentMetrics metrics = AgentMetrics.prometheus();
  private final PollStats stats = new PollStats(metrics);
  private final Instant startedAt;
  private final Duration heartbeatInterval;
  private final java.util.concurrent.atomic.AtomicLong heartbeatSequence =
      new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.ScheduledExecutorService heartbeats =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sebridge-heartbeat");
            t.setDaemon(true);
            return t;
          });
  private final MetadataPoller poller;
  private final AtomicReference<VmIdentity> identity = new AtomicReference<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Duration interval;
  private Thread pollerThread;
  private Thread identityThread;
  private HealthEndpoint http;
  private volatile boolean identityWaitLogged;
  private volatile boolean closing;
  private volatile long committedIncarnation = -1;
  private final ApprovalSettings approvalSettings;
  private final TrustedKeys trustedKeys;
  private final CommandSourceProvider commandSourceProvider;
  private final ReplayCache replayCache;
  private final AtomicReference<ApprovalService> approvals = new AtomicReference<>();
  private final java.util.concurrent.atomic.AtomicLong commandsHandled =
      new java.util.concurrent.atomic.AtomicLong();
  private Thread commandThread;
  private volatile CommandSource commandSource;

  private Agent(Builder b) {
    this.config = b.config;
    this.clock = b.clock;
    this.interval = config.get(CoreKeys.IMDS_POLL_INTERVAL);
    this.startedAt = clock.instant();
    this.heartbeatInterval = config.get(CoreKeys.HEARTBEAT_INTERVAL);
    this.state = StateDirectory.open(config.get(CoreKeys.STATE_DIR), clock);
    try {
      this.imds =
          new ImdsClient(
              config.get(CoreKeys.IMDS_ENDPOINT),
              config.get(CoreKeys.IMDS_API_VERSION),
              config.get(CoreKeys.IMDS_COMPUTE_API_VERSION));
      Optional<TrackerState> restored = restoreState();
      Duration gap = interval.multipliedBy(10);
      if (gap.compareTo(Duration.ofSeconds(30)) < 0) {
        gap = Duration.ofSeconds(30);
      }
      this.tracker =
          new EventTracker(restored.orElse(TrackerState.initial()), restored.isPresent(), gap);
      this.envelopes = new EnvelopeFactory(b.agentInfo, clock);
      this.approvalSettings = ApprovalSettings.from(config);
      this.commandSourceProvider = CommandSourceCatalog.discover().selected(config).orElse(null);
      this.trustedKeys =
          commandSourceProvider == null
              ? null
              : TrustedKeys.load(
                  config
                      .find(CoreKeys.COMMANDS_TRUSTED_KEYS)
                      .orElseThrow(
                          () ->
                              new dev.sebridge.config.ConfigException(
                                  CoreKeys.COMMANDS_TRUSTED_KEYS.name(),
                                  "is required with commands.source")),
                  CoreKeys.COMMANDS_TRUSTED_KEYS.name());
      this.replayCache = new ReplayCache(state, clock);
      List<EventSink> sinks =
          new ArrayList<>(
              SinkCatalog.discover().create(new SinkContext(config, state.path(), clock)));
      sinks.addAll(b.extraSinks);
      this.publisher =
          b.publisher != null
              ? b.publisher
              : new Outbox(
                  state,
                  sinks,
                  new OutboxSettings(
                      config.get(CoreKeys.OUTBOX_MAX_BYTES),
                      4L * 1024 * 1024,
                      config.get(CoreKeys.PUBLISH_BATCH_SIZE),
                      config.get(CoreKeys.PUBLISH_EXPORT_TIMEOUT),
                      config.get(CoreKeys.PUBLISH_RETRY_MAX_BACKOFF)),
                  clock,
                  metrics.registry());
      this.poller =
          new MetadataPoller(
              imds,
              this::onDocument,
              stats,
              clock,
              interval,
              config.get(CoreKeys.IMDS_REQUEST_TIMEOUT),
              config.get(CoreKeys.IMDS_FIRST_REQUEST_TIMEOUT),
              config.get(CoreKeys.IMDS_MAX_BACKOFF));
    } catch (RuntimeException e) {
      state.close();
      throw e;
    }
  }

  public static Builder builder(Configuration config) {
    return new Builder(config);
  }

  private Optional<TrackerState> restoreState() {
    Optional<byte[]> bytes = state.read(TRACKER_FILE);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    try {
      TrackerState s = TrackerStateCodec.read(bytes.get());
      LOG.info(
          "Restored state: incarnation {}, {} known events", s.incarnation(), s.events().size());
      return Optional.of(s);
    } catch (IllegalArgumentException e) {
      state.quarantine(TRACKER_FILE, e.getMessage());
      return Optional.empty();
    }
  }

  /** Starts polling (and the HTTP endpoint); returns at once. */
  public Agent start() {
    int port = config.get(CoreKeys.HTTP_PORT);
    if (port > 0) {
      try {
        http =
            new HealthEndpoint(
                config.get(CoreKeys.HTTP_BIND_ADDRESS),
                port,
                this::readinessProblems,
                metrics::scrape);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot listen on "
                + config.get(CoreKeys.HTTP_BIND_ADDRESS)
                + ":"
                + port
                + " (http.port)",
            e);
      }
    }
    identityThread = new Thread(this::resolveIdentity, "sebridge-identity");
    identityThread.setDaemon(true);
    identityThread.start();
    pollerThread = new Thread(poller, "sebridge-poller");
    pollerThread.start();
    heartbeats.scheduleAtFixedRate(
        this::heartbeat,
        Math.min(2000, heartbeatInterval.toMillis()),
        heartbeatInterval.toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS);
    if (commandSourceProvider != null) {
      commandThread = new Thread(this::commandLoop, "sebridge-commands");
      commandThread.setDaemon(true);
      commandThread.start();
    }
    LOG.info(
        "sebridge agent started: IMDS {} every {}, state in {}",
        imds.scheduledEventsUri(),
        interval,
        state.path());
    return this;
  }

  /** Address the HTTP endpoint listens on, if it is on. */
  public java.util.Optional<java.net.InetAddress> httpAddress() {
    return http == null ? java.util.Optional.empty() : java.util.Optional.of(http.address());
  }

  /** Port of the HTTP endpoint, or 0 when off. */
  public int httpPort() {
    return http == null ? 0 : http.port();
  }

  /** DocumentIncarnation of the last document fully processed (envelopes durable), or -1. */
  public long committedIncarnation() {
    return committedIncarnation;
  }

  /** The outbox, when the agent uses one (always, unless a test replaced the publisher). */
  public Optional<Outbox> outbox() {
    return publisher instanceof Outbox o ? Optional.of(o) : Optional.empty();
  }

  public AgentMetrics metrics() {
    return metrics;
  }

  public PollStats stats() {
    return stats;
  }

  public Optional<VmIdentity> identity() {
    return Optional.ofNullable(identity.get());
  }

  /** Blocks until {@link #close()} was called. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  List<String> readinessProblems() {
    List<String> problems = new ArrayList<>();
    if (identity.get() == null) {
      problems.add("VM identity not known yet");
    }
    Instant last = stats.lastSuccess();
    Duration fresh =
        interval.multipliedBy(5).compareTo(Duration.ofSeconds(10)) > 0
            ? interval.multipliedBy(5)
            : Duration.ofSeconds(10);
    if (last == null) {
      problems.add("IMDS has not answered yet");
    } else if (Duration.between(last, clock.instant()).compareTo(fresh) > 0) {
      problems.add(
          "IMDS has not answered for " + Duration.between(last, clock.instant()).toSeconds() + "s");
    }
    if (!publisher.healthy()) {
      problems.add(
          publisher instanceof Outbox o
              ? "sinks failing: " + String.join(", ", o.failingSinks())
              : "a sink keeps failing");
    }
    return problems;
  }

  private void resolveIdentity() {
    Optional<String> vmId = config.find(CoreKeys.VM_ID);
    Optional<String> vmName = config.find(CoreKeys.VM_NAME);
    if (vmId.isPresent() && vmName.isPresent()) {
      identity.set(VmIdentity.of(vmId.get(), vmName.get()));
      heartbeats.execute(this::heartbeat);
      LOG.info("VM identity from configuration: {} ({})", vmName.get(), vmId.get());
      return;
    }
    IntervalFunction backoff =
        IntervalFunction.ofExponentialRandomBackoff(
            Duration.ofSeconds(1), 2.0, 0.5, Duration.ofMinutes(1));
    int attempt = 0;
    Duration timeout = config.get(CoreKeys.IMDS_FIRST_REQUEST_TIMEOUT);
    while (!closing) {
      ImdsResult<VmIdentity> r = imds.identity(timeout);
      if (r instanceof ImdsResult.Ok<VmIdentity> ok) {
        VmIdentity v = ok.value();
        VmIdentity merged =
            new VmIdentity(
                vmId.orElse(v.vmId()),
                vmName.orElse(v.name()),
                v.resourceId(),
                v.subscriptionId(),
                v.resourceGroupName(),
                v.location(),
                v.zone(),
                v.vmScaleSetName(),
                v.osType());
        identity.set(merged);
        LOG.info("VM identity: {} ({}), {}", merged.name(), merged.vmId(), merged.source());
        heartbeats.execute(this::heartbeat);
        return;
      }
      attempt++;
      var f = ((ImdsResult.Failed<VmIdentity>) r).failure();
      if (attempt == 5) {
        LOG.warn(
            "cannot read the VM identity from IMDS yet ({}); envelopes wait for it. Set vm.id and vm.name where compute metadata is unavailable",
            f);
      } else {
        LOG.info("reading the VM identity failed ({}), retrying", f);
      }
      try {
        Thread.sleep(backoff.apply(attempt));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The approval service, once the VM identity is known (null before, or when unused). */
  private ApprovalService approvals(VmIdentity vm) {
    ApprovalService a = approvals.get();
    if (a == null && (commandSourceProvider != null || approvalSettings.anyPolicy())) {
      CommandVerifier verifier =
          trustedKeys == null ? null : new CommandVerifier(trustedKeys, vm.vmId(), clock);
      a =
          new ApprovalService(
              imds,
              config.get(CoreKeys.IMDS_REQUEST_TIMEOUT),
              approvalSettings,
              replayCache,
              verifier,
              envelopes,
              publisher,
              vm,
              this::markApproved,
              clock,
              metrics);
      if (!approvals.compareAndSet(null, a)) {
        a.close();
        a = approvals.get();
      }
    }
    return a;
  }

  private synchronized void markApproved(List<String> eventIds, Instant at) {
    boolean changed = false;
    for (String id : eventIds) {
      var known = tracker.state().events().get(id.toLowerCase(java.util.Locale.ROOT));
      if (known != null && known.approvedAt() == null) {
        metrics.approvalDelay(Duration.between(known.firstSeenAt(), at));
      }
      changed |= tracker.markApproved(id, at) != null;
    }
    if (changed) {
      state.write(TRACKER_FILE, TrackerStateCodec.write(tracker.state()));
    }
  }

  /** Publishes a heartbeat (sheddable: dropped first when the outbox is full). */
  private void heartbeat() {
    VmIdentity vm = identity.get();
    if (vm == null || closing) {
      return;
    }
    try {
      Outbox o = publisher instanceof Outbox x ? x : null;
      int known;
      synchronized (this) {
        known = tracker.state().events().size();
      }
      Envelope hb =
          envelopes.heartbeat(
              new EnvelopeFactory.HeartbeatData(
                  heartbeatSequence.incrementAndGet(),
                  heartbeatInterval,
                  startedAt,
                  stats.polls(),
                  stats.documents(),
                  stats.failuresByClass(),
                  stats.lastSuccess(),
                  stats.lastIncarnation(),
                  known,
                  o == null ? 0 : o.sizeBytes(),
                  o == null ? java.util.Map.of() : o.pendingBySink()),
              vm);
      if (o != null) {
        o.publishSheddable(List.of(hb));
      } else {
        publisher.publish(List.of(hb));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("could not publish a heartbeat: {}", e.toString());
    }
  }

  /** Commands handled (results published) since start. */
  public long commandsHandled() {
    return commandsHandled.get();
  }

  private void commandLoop() {
    try {
      while (!closing && identity.get() == null) {
        Thread.sleep(200);
      }
      if (closing) {
        return;
      }
      VmIdentity vm = identity.get();
      ApprovalService service = approvals(vm);
      String positionFile = "commands/position-" + commandSourceProvider.name();
      CommandSource source = commandSourceProvider.create(config, vm.vmId());
      commandSource = source;
      Optional<String> position =
          state.read(positionFile).map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8));
      IntervalFunction backoff =
          IntervalFunction.ofExponentialRandomBackoff(
              Duration.ofMillis(500), 2.0, 0.5, Duration.ofSeconds(30));
      int failures = 0;
      source.open(position);
      LOG.info("reading approval commands from {} for vmId {}", source.name(), vm.vmId());
      while (!closing) {
        List<ReceivedCommand> batch;
        try {
          batch = source.poll(Duration.ofMillis(500));
          failures = 0;
        } catch (RuntimeException e) {
          failures++;
          if (failures == 3) {
            LOG.warn("cannot read commands from {}: {}", source.name(), e.toString());
          }
          Thread.sleep(backoff.apply(failures));
          continue;
        }
        for (ReceivedCommand c : batch) {
          if (closing) {
            return;
          }
          service.handleCommand(c);
          // The result is durable in the outbox: only now does the command count as read.
          state.write(positionFile, c.position().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          commandsHandled.incrementAndGet();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("the command loop stopped: approvals by command are off until a restart", e);
    }
  }

  private void onDocument(ScheduledEventsDocument doc, Instant at) throws InterruptedException {
    VmIdentity vm = identity.get();
    if (vm == null) {
      if (!identityWaitLogged) {
        LOG.info(
            "IMDS answered (incarnation {}); waiting for the VM identity before reporting",
            doc.incarnation());
        identityWaitLogged = true;
      }
      return;
    }
    EventTracker.Observation obs;
    synchronized (this) {
      if (tracker.touchIfUnchanged(doc, at)) {
        committedIncarnation = doc.incarnation();
        return;
      }
      obs = tracker.observe(doc, at);
    }
    if (!obs.transitions().isEmpty()) {
      List<Envelope> out = new ArrayList<>(obs.transitions().size());
      for (Transition t : obs.transitions()) {
        out.add(envelopes.scheduledEvent(t, vm));
      }
      publisher.publish(out);
      stats.transitions(out.size());
      for (Transition t : obs.transitions()) {
        metrics.transition(t.type());
        LOG.info(
            "{} {} {} (incarnation {}{})",
            t.type().label(),
            t.event().eventType(),
            t.event().eventId(),
            t.incarnation(),
            t.inferred() ? ", inferred" : "");
      }
    }
    synchronized (this) {
      tracker.commit(obs);
      if (obs.stateChanged()) {
        state.write(TRACKER_FILE, TrackerStateCodec.write(tracker.state()));
      }
    }
    committedIncarnation = doc.incarnation();
    ApprovalService a = approvals(vm);
    if (a != null) {
      for (Transition t : obs.transitions()) {
        if (t.type() == dev.sebridge.track.TransitionType.SCHEDULED && !t.inferred()) {
          a.onScheduled(t.event(), t.incarnation());
        }
      }
    }
  }

  /** Stops polling, flushes the sinks (bounded by agent.shutdown-timeout), releases the state. */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    Duration timeout = config.get(CoreKeys.SHUTDOWN_TIMEOUT);
    heartbeats.shutdownNow();
    poller.stop();
    if (pollerThread != null) {
      try {
        pollerThread.join(timeout.toMillis());
        if (pollerThread.isAlive()) {
          // Blocked publishing to a dead sink: nothing was committed, the next run re-sends.
          pollerThread.interrupt();
          pollerThread.join(1000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (identityThread != null) {
      identityThread.interrupt();
    }
    if (commandThread != null) {
      try {
        commandThread.join(Math.min(5000, timeout.toMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (commandThread.isAlive()) {
        commandThread.interrupt();
      }
    }
    CommandSource cs = commandSource;
    if (cs != null) {
      cs.close();
    }
    ApprovalService a = approvals.get();
    if (a != null) {
      a.close();
    }
    publisher.close(timeout);
    if (http != null) {
      http.close();
    }
    state.close();
    stopped.countDown();
    LOG.info("sebridge agent stopped");
  }

  /** Builds an agent. */
  public static final class Builder {
    private final Configuration config;
    private Clock clock = Clock.systemUTC();
    private AgentInfo agentInfo = AgentInfo.current();
    private final List<EventSink> extraSinks = new ArrayList<>();
    private EnvelopePublisher publisher;

    private Builder(Configuration config) {
      this.config = config;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Builder agentInfo(AgentInfo info) {
      this.agentInfo = info;
      return this;
    }

    /** A sink beside the configured ones (the demo's timeline printer, tests). */
    public Builder extraSink(EventSink sink) {
      this.extraSinks.add(sink);
      return this;
    }

    /** Replaces the publisher (tests). */
    public Builder publisher(EnvelopePublisher publisher) {
      this.publisher = publisher;
      return this;
    }

    public Agent build() {
      return new Agent(this);
    }
  }
}
