package dev.sebridge.fleet;

import dev.sebridge.command.CommandSigner;
import dev.sebridge.config.ConfigException;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.api.ApprovalRequests;
import dev.sebridge.fleet.api.CampaignIndex;
import dev.sebridge.fleet.api.CoreApi;
import dev.sebridge.fleet.api.CoverageQueries;
import dev.sebridge.fleet.api.FleetQueries;
import dev.sebridge.fleet.api.FleetServer;
import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.api.HttpLimits;
import dev.sebridge.fleet.api.RateLimits;
import dev.sebridge.fleet.api.RecentRequests;
import dev.sebridge.fleet.api.RolloutApi;
import dev.sebridge.fleet.api.RolloutRequests;
import dev.sebridge.fleet.api.Route;
import dev.sebridge.fleet.auth.Authenticator;
import dev.sebridge.fleet.rollout.Policies;
import dev.sebridge.fleet.rollout.RolloutCommand;
import dev.sebridge.fleet.signing.FleetSigner;
import dev.sebridge.fleet.streams.CommandIssuer;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.Topics;
import dev.sebridge.fleet.streams.TopologyObserver;
import dev.sebridge.fleet.web.FleetPage;
import dev.sebridge.fleet.web.LiveStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet service: Kafka Streams over the envelopes topic ({@link FleetTopology}), the HTTP API
 * over its views ({@link FleetServer}), and the producer operators' approvals and rollout commands
 * go through. Built from configuration ({@link FleetKeys}); {@link #start()} creates its topics,
 * starts the streams and serves; {@link #close()} stops all of it.
 */
public final class FleetService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FleetService.class);

  private final Configuration config;
  private final Topics topics;
  private final Map<String, Object> kafka;
  private final KafkaStreams streams;
  private final Admin admin;
  private final String streamsApplicationId;
  private final Producer<String, RolloutCommand> rolloutCommands;
  private final ViewChanges changes = new ViewChanges();
  private final LiveStream live;
  private final java.util.concurrent.atomic.AtomicInteger commandPartitions =
      new java.util.concurrent.atomic.AtomicInteger();
  private final FleetServer server;
  private final FleetMetrics metrics;
  private final ViewTallies tallies =
      new ViewTallies().onSilentChange(() -> changes.viewChanged(ViewChanges.SILENT_AGENTS));
  private final CampaignIndex campaigns = new CampaignIndex();
  private final RecentRequests recentRequests = new RecentRequests();
  private final FleetReadiness readiness;
  private final CommandIssuer issuer;
  private final CountDownLatch running = new CountDownLatch(1);
  private final FleetInventory inventory;
  private final dev.sebridge.fleet.streams.RolloutsOwner rolloutsOwner;
  private final FleetAcknowledgements acknowledgements;
  private final FleetViews views;
  private final java.util.function.Supplier<FleetInventory.Access> inventoryAccess;
  private final java.util.function.Supplier<FleetInventory.Access> acknowledgeAccess;
  private final Clock clock;

  FleetService(FleetServiceBuilder b) {
    this.config = b.config;
    this.clock = b.clock;
    this.inventory = new FleetInventory(config);
    this.inventoryAccess = b::inventoryAccess;
    this.acknowledgements = new FleetAcknowledgements(config);
    this.acknowledgeAccess = b::acknowledgeAccess;
    this.topics =
        new Topics(
            config.get(FleetKeys.TOPIC_PREFIX),
            config.get(FleetKeys.ENVELOPES_TOPIC),
            config.get(FleetKeys.COMMANDS_TOPIC),
            config.get(FleetKeys.APPROVALS_TOPIC),
            config.get(FleetKeys.CENTRAL_EVENTS),
            acknowledgements.enabled());
    this.kafka = FleetClients.kafka(config);
    Authenticator auth = FleetAuthenticators.of(config);
    CommandSigner signer = FleetSigner.from(config, b::keyVaultAccess);
    this.metrics = new FleetMetrics(clock);
    TopologyObserver observer =
        TopologyObserver.all(
            metrics, changes, inventory.coverage(), tallies, campaigns, recentRequests, b.observer);
    this.issuer = new CommandIssuer(signer, config.get(FleetKeys.COMMAND_LIFETIME));
    List<ConfigProblem> problems = new ArrayList<>();
    Policies policies = FleetKeys.policies(config, problems);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    // Topics at start, and whether the rollouts task has caught up (RolloutsReplayGate): with the
    // application id Streams really uses (fleet.kafka.client.* may override it).
    this.admin = Admin.create(kafka);
    java.util.Properties streamsConfig = FleetStreamsConfig.of(config, kafka);
    this.streamsApplicationId =
        streamsConfig.getProperty(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG);
    // The global views' own metrics, once the client that reports them is made (below).
    java.util.concurrent.atomic.AtomicReference<KafkaStreams> client =
        new java.util.concurrent.atomic.AtomicReference<>();
    this.streams =
        new KafkaStreams(
            FleetTopology.build(
                topics,
                issuer,
                config.get(FleetKeys.SILENT_AFTER),
                new dev.sebridge.fleet.streams.Retention(
                    config.get(FleetKeys.CLOSED_RETENTION),
                    config.get(FleetKeys.VM_RETENTION),
                    config.get(FleetKeys.HISTORY_RETENTION),
                    config.get(FleetKeys.CLOSED_VIEWS_PACKED)),
                observer,
                policies,
                Duration.ofSeconds(1),
                commandPartitions::get,
                new RolloutsReplayGate(
                    admin, streamsApplicationId, topics.of(FleetTopology.ROLLOUTS)),
                new GlobalViewsGate(
                    () -> client.get().metrics(),
                    java.util.Set.of(
                        topics.of(FleetTopology.VIEWS_VMS),
                        topics.of(FleetTopology.VIEWS_EVENTS),
                        topics.of(FleetTopology.VIEWS_REQUESTS),
                        topics.of(FleetTopology.INVENTORY))),
                inventory.membership()),
            streamsConfig);
    client.set(streams);
    // A failed stream thread is replaced, unless it fails again and again: then the client stops.
    streams.setUncaughtExceptionHandler(
        new ThreadReplacements(clock).handler(metrics::threadReplaced));
    streams.setStateListener(
        (now, before) -> {
          LOG.info("fleet streams: {} -> {}", before, now);
          if (now == KafkaStreams.State.RUNNING) {
            running.countDown();
          }
        });
    this.views =
        inventory
            .views(streams)
            .withKeys(tallies)
            .withCampaigns(campaigns)
            .withRecentRequests(recentRequests);
    metrics.views(views, tallies);
    metrics.inventory(inventory.coverage(), inventory::refreshedAt);
    this.rolloutsOwner =
        new dev.sebridge.fleet.streams.RolloutsOwner(streams, topics.of(FleetTopology.ROLLOUTS));
    metrics.rolloutsOwner(rolloutsOwner::now);
    this.readiness = new FleetReadiness(streams, clock);
    this.rolloutCommands =
        FleetClients.producer(kafka, "sebridge-fleet-rollouts", RolloutCommand.class);
    ApprovalRequests approvals =
        new ApprovalRequests(
            rolloutCommands,
            topics.of(FleetTopology.ROLLOUTS),
            views,
            clock,
            acknowledgements.enabled());
    RolloutRequests rollouts =
        new RolloutRequests(rolloutCommands, topics.of(FleetTopology.ROLLOUTS), views, clock);
    this.live = new LiveStream(changes, config.get(HttpKeys.LIVE_PAGES));
    HttpLimits limits = HttpKeys.limits(config);
    RateLimits writes = new RateLimits(limits.writesPerMinute());
    FleetServer http =
        new FleetServer(
            config.get(FleetKeys.HTTP_BIND_ADDRESS),
            config.get(FleetKeys.HTTP_PORT),
            limits,
            auth,
            writes,
            readiness::problems);
    this.server =
        http.route(new RolloutApi(rollouts, views, policies, clock))
            .route(
                new FleetPage(
                    http.signIns(),
                    views,
                    approvals,
                    rollouts,
                    live,
                    limits,
                    writes,
                    tallies,
                    inventory.coverage(),
                    inventory::refreshedAt))
            .route(
                new CoreApi(
                    new FleetQueries(views, clock),
                    new CoverageQueries(views, inventory.coverage(), inventory::refreshedAt, clock),
                    approvals,
                    metrics::scrape));
  }

  public static FleetServiceBuilder builder(Configuration config) {
    return new FleetServiceBuilder(config);
  }

  /** Creates the service's topics when missing, starts the streams and serves the API. */
  public FleetService start() throws InterruptedException {
    FleetTopics.prepare(admin, topics, streamsApplicationId, config, inventory.configured());
    commandPartitions.set(FleetTopics.partitions(admin, topics.commands()));
    streams.start();
    inventory.start(kafka, topics, views, inventoryAccess, clock, rolloutsOwner::now);
    acknowledgements.start(
        kafka, topics, streamsApplicationId, acknowledgeAccess, clock, metrics, views);
    if (config.isSet(FleetKeys.SIGNING_KEY_FILE)) {
      issuer.warmUp(2_000);
    }
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on "
              + config.get(FleetKeys.HTTP_BIND_ADDRESS)
              + ":"
              + config.get(FleetKeys.HTTP_PORT)
              + " (fleet.http.port): "
              + e.getMessage(),
          e);
    }
    LOG.info(
        "fleet service on port {}: envelopes from {}, commands to {}",
        server.port(),
        topics.envelopes(),
        topics.commands());
    return this;
  }

  /** Waits until the streams run (their stores restored): true if they did in time. */
  public boolean awaitRunning(Duration timeout) throws InterruptedException {
    return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The API's port. */
  public int port() {
    return server.port();
  }

  /** What keeps the service from being ready; empty when it is. */
  public List<String> readinessProblems() {
    return readiness.problems();
  }

  /** Changes of this instance's views (the web page's live stream waits on it). */
  public ViewChanges changes() {
    return changes;
  }

  public FleetMetrics metrics() {
    return metrics;
  }

  /** The views this instance answers from. */
  public FleetViews views() {
    return views;
  }

  /** Adds a route to the HTTP server (the web page). */
  public FleetService route(Route route) {
    server.route(route);
    return this;
  }

  @Override
  public void close() {
    live.close();
    server.close();
    inventory.close();
    acknowledgements.close();
    streams.close(Duration.ofSeconds(30));
    rolloutCommands.close(Duration.ofSeconds(5));
    admin.close(Duration.ofSeconds(5));
    issuer.close();
  }
}
