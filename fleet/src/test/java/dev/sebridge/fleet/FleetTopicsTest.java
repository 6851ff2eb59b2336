package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sebridge.config.ConfigException;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.Topics;
import dev.sebridge.fleet.streams.TopologyObserver;
import dev.sebridge.fleet.testing.FleetTemplate;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the service reads from the brokers, against a real one: the topics it creates or finds (and
 * refuses to start on), whether the rollouts task replays, and its global views' lag.
 */
class FleetTopicsTest {
  static EmbeddedKafkaBroker kafka;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaBroker().start();
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  static Topics topics(String prefix) {
    kafka.createTopic(prefix + "-envelopes", 3);
    kafka.createTopic(prefix + "-commands", 3);
    return new Topics(prefix, prefix + "-envelopes", prefix + "-commands", prefix + "-approvals");
  }

  /** Until the broker lists these topics (a new topic's metadata reaches it a moment later). */
  static void listed(String... names) {
    try (Admin admin = kafka.admin()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.listTopics().names().get().containsAll(List.of(names)));
    }
  }

  /**
   * Pre-created topics (Event Hubs): each is checked and none is created or altered; a template
   * that got them wrong in five ways stops the service naming every difference at once.
   */
  @Test
  void preCreatedTopicsAreCheckedAndEveryDifferenceIsNamed() throws Exception {
    Topics good = topics("made");
    Topics bad = topics("botched");
    listed(good.envelopes(), good.commands(), bad.envelopes(), bad.commands());
    Duration history = Duration.ofDays(30);
    Map<String, PreCreatedTopics.Expected> goodSpec =
        PreCreatedTopics.expected(good, "made-app", 3, 4, history);
    Map<String, PreCreatedTopics.Expected> badSpec =
        PreCreatedTopics.expected(bad, "botched-app", 3, 4, history);
    try (Admin admin = kafka.admin()) {
      admin.createTopics(made(goodSpec, Map.of())).all().get();
      // As a template might get them wrong: two partitions for the rollouts topic, a view that
      // deletes, an audit trail kept 7 days, and a changelog left out.
      Map<String, org.apache.kafka.clients.admin.NewTopic> wrong = new java.util.HashMap<>();
      wrong.put(
          bad.of(FleetTopology.ROLLOUTS),
          new org.apache.kafka.clients.admin.NewTopic(bad.of(FleetTopology.ROLLOUTS), 2, (short) 1)
              .configs(Map.of("retention.ms", Long.toString(history.toMillis()))));
      wrong.put(
          bad.of(FleetTopology.VIEWS_EVENTS),
          new org.apache.kafka.clients.admin.NewTopic(
              bad.of(FleetTopology.VIEWS_EVENTS), 4, (short) 1));
      wrong.put(
          bad.approvals(),
          new org.apache.kafka.clients.admin.NewTopic(bad.approvals(), 4, (short) 1)
              .configs(Map.of("retention.ms", Long.toString(Duration.ofDays(7).toMillis()))));
      wrong.put("botched-app-ledger-state-changelog", null);
      wrong.put(
          "botched-app-policy-state-changelog",
          new org.apache.kafka.clients.admin.NewTopic(
                  "botched-app-policy-state-changelog", 1, (short) 1)
              .configs(
                  Map.of(
                      "cleanup.policy",
                      "compact,delete",
                      "retention.ms",
                      Long.toString(Duration.ofDays(7).toMillis()))));
      admin.createTopics(made(badSpec, wrong)).all().get();
      listed(goodSpec.keySet().toArray(String[]::new));
      listed(
          badSpec.keySet().stream()
              .filter(n -> !n.equals("botched-app-ledger-state-changelog"))
              .toArray(String[]::new));
      java.util.Set<String> before = admin.listTopics().names().get();

      PreCreatedTopics.verify(admin, goodSpec);
      assertThatThrownBy(() -> PreCreatedTopics.verify(admin, badSpec))
          .isInstanceOfSatisfying(
              dev.sebridge.config.ConfigException.class,
              e ->
                  assertThat(e.problems())
                      .extracting(dev.sebridge.config.ConfigProblem::message)
                      .containsExactlyInAnyOrder(
                          "topic botched-rollouts has 2 partitions; it must have 1 (one task"
                              + " decides every rollout; replayed after a failover)",
                          "topic botched-views-events has cleanup.policy=delete and"
                              + " retention.ms=604800000; it must be compact (a view: the latest"
                              + " record per key)",
                          "topic botched-app-policy-state-changelog has"
                              + " cleanup.policy=compact,delete and retention.ms=604800000; it must"
                              + " be compact (Kafka Streams' changelog of policy-state)",
                          "topic botched-approvals keeps records PT168H; it must keep them at"
                              + " least PT720H (the audit trail, joined with -by-request partition"
                              + " by partition)",
                          "topic botched-app-ledger-state-changelog does not exist (Kafka Streams'"
                              + " changelog of ledger-state)"));
      assertThat(admin.listTopics().names().get()).as("nothing created").isEqualTo(before);
    }
  }

  /**
   * With pre-created topics: gzip (Event Hubs takes no other), 1 MiB records, no topic settings.
   */
  @Test
  void preCreatedTopicsMeanEventHubsProducerSettings() {
    java.util.Properties p =
        FleetStreamsConfig.of(
            dev.sebridge.config.Configuration.of(
                Map.of(
                    "fleet.kafka.bootstrap-servers", "x:9093",
                    "fleet.topics.pre-created", "true",
                    "fleet.state-dir", "/tmp/unused")),
            Map.of());
    assertThat(p.get("producer.compression.type")).isEqualTo("gzip");
    assertThat(p.get("producer.max.request.size")).isEqualTo(1024 * 1024);
    assertThat(p.get("topic.max.message.bytes")).isNull();
    assertThat(p.get("topic.segment.ms")).isNull();
    assertThat(
            p.get(org.apache.kafka.streams.StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG))
        .isEqualTo(dev.sebridge.fleet.streams.SkipAndCount.class.getName());
  }

  /**
   * deploy/azure/fleet.bicep's hubs, made as Event Hubs shows them to Kafka clients (a Compact hub
   * compacted, a Delete hub keeping its hours), pass the service's own "topics are pre-created"
   * check with nothing left out; the template's defaults are the service's.
   */
  @Test
  void theDeploymentTemplatesHubsPassThePreCreatedCheck() throws Exception {
    FleetTemplate template = FleetTemplate.read();
    Map<String, dev.sebridge.config.ConfigKey<?>> sameAs =
        Map.of(
            "topicPrefix", FleetKeys.TOPIC_PREFIX,
            "applicationId", FleetKeys.APPLICATION_ID,
            "approvalsHubName", FleetKeys.APPROVALS_TOPIC,
            "partitions", FleetKeys.PARTITIONS,
            "eventsHubName", FleetKeys.ENVELOPES_TOPIC,
            "commandsHubName", FleetKeys.COMMANDS_TOPIC);
    sameAs.forEach(
        (parameter, key) ->
            assertThat(template.defaultOf(parameter).asText())
                .as(parameter)
                .isEqualTo(key.defaultValue().orElseThrow().toString()));

    Topics t = topics("deployed");
    listed(t.envelopes(), t.commands());
    Map<String, FleetTemplate.Topic> hubs =
        template.topics("deployed", "deployed-app", t.approvals(), 4, 3);
    try (Admin admin = kafka.admin()) {
      List<org.apache.kafka.clients.admin.NewTopic> made = new java.util.ArrayList<>();
      for (FleetTemplate.Topic h : hubs.values()) {
        made.add(
            new org.apache.kafka.clients.admin.NewTopic(h.name(), h.partitions(), (short) 1)
                .configs(
                    h.compact()
                        ? Map.of("cleanup.policy", "compact")
                        : Map.of(
                            "cleanup.policy",
                            "delete",
                            "retention.ms",
                            Long.toString(h.retention().toMillis()))));
      }
      admin.createTopics(made).all().get();
      listed(hubs.keySet().toArray(String[]::new));
      dev.sebridge.config.Configuration config =
          dev.sebridge.config.Configuration.of(
              Map.of("fleet.topics.pre-created", "true", "fleet.partitions", "4"));
      FleetTopics.prepare(admin, t, "deployed-app", config, true);
    }
  }

  /** The topics as a template would make them; {@code wrong} replaces some (null: left out). */
  private static List<org.apache.kafka.clients.admin.NewTopic> made(
      Map<String, PreCreatedTopics.Expected> spec,
      Map<String, org.apache.kafka.clients.admin.NewTopic> wrong) {
    List<org.apache.kafka.clients.admin.NewTopic> out = new java.util.ArrayList<>();
    spec.forEach(
        (name, x) -> {
          if (x.compact() == null) {
            return; // the agents' topics exist already
          }
          if (wrong.containsKey(name)) {
            if (wrong.get(name) != null) {
              out.add(wrong.get(name));
            }
            return;
          }
          Map<String, String> configs = new java.util.HashMap<>();
          configs.put("cleanup.policy", x.compact() ? "compact" : "delete");
          if (x.minRetention() != null) {
            configs.put("retention.ms", Long.toString(x.minRetention().toMillis()));
          }
          out.add(
              new org.apache.kafka.clients.admin.NewTopic(
                      name, x.partitions() == null ? 2 : x.partitions(), (short) 1)
                  .configs(configs));
        });
    return out;
  }

  @Test
  void freshTopicsAreCreatedAlignedAndTheRolloutsTopicHasOnePartition() throws Exception {
    Topics t = topics("fresh");
    listed(t.envelopes(), t.commands());
    try (Admin admin = kafka.admin()) {
      FleetTopics.ensure(admin, t, 6, (short) 1);
      listed(t.approvals(), t.of(FleetTopology.BY_REQUEST), t.of(FleetTopology.ROLLOUTS));
      assertThat(FleetTopics.partitions(admin, t.approvals())).isEqualTo(6);
      assertThat(FleetTopics.partitions(admin, t.of(FleetTopology.BY_REQUEST))).isEqualTo(6);
      assertThat(FleetTopics.partitions(admin, t.of(FleetTopology.ROLLOUTS))).isEqualTo(1);
      for (String view :
          List.of(
              FleetTopology.VIEWS_VMS,
              FleetTopology.VIEWS_EVENTS,
              FleetTopology.VIEWS_REQUESTS,
              FleetTopology.VIEWS_ROLLOUTS,
              FleetTopology.VIEWS_ROLLOUT_PARTS,
              FleetTopology.VIEWS_POLICIES,
              FleetTopology.INVENTORY)) {
        assertThat(config(admin, t.of(view), "segment.ms")).as(view).isEqualTo("60000");
        assertThat(config(admin, t.of(view), "cleanup.policy")).as(view).isEqualTo("compact");
      }
      assertThat(config(admin, t.approvals(), "segment.ms"))
          .as("not compacted: the broker's")
          .isEqualTo(Long.toString(Duration.ofDays(7).toMillis()));
    }
  }

  /**
   * A views topic made before the service rolled them every minute (or by hand, with the broker's
   * week) is set to roll every minute at start, and so is a changelog Streams made before (it sets
   * topic.segment.ms only on those it creates): compaction cleans closed segments only, and a start
   * reads them whole. One that rolls more often already, and one that is not compacted (a segment a
   * minute kept a week would be 10,080 of them), are left as they are. And the changelogs Streams
   * makes roll as often, unless the topics are pre-created (Event Hubs manages its own compaction).
   */
  @Test
  void viewsTopicsAndChangelogsRollASegmentEveryMinuteAndOlderOnesAreSetSo() throws Exception {
    Topics t = topics("rolls");
    Map<String, String> compact = Map.of("cleanup.policy", "compact");
    String vmState = "rolls-app-" + FleetTopology.VM_STATE + "-changelog";
    kafka.createTopic(t.of(FleetTopology.VIEWS_VMS), 2, compact); // the broker's week
    kafka.createTopic(vmState, 2, compact);
    kafka.createTopic(
        t.of(FleetTopology.VIEWS_EVENTS),
        2,
        Map.of("cleanup.policy", "compact", "segment.ms", "30000"));
    kafka.createTopic(t.of(FleetTopology.VIEWS_REQUESTS), 2); // by hand, not compacted
    listed(
        t.envelopes(),
        t.commands(),
        t.of(FleetTopology.VIEWS_VMS),
        t.of(FleetTopology.VIEWS_EVENTS),
        t.of(FleetTopology.VIEWS_REQUESTS),
        vmState);
    String week = Long.toString(Duration.ofDays(7).toMillis());
    try (Admin admin = kafka.admin()) {
      assertThat(config(admin, t.of(FleetTopology.VIEWS_VMS), "segment.ms")).isEqualTo(week);
      FleetTopics.prepare(
          admin,
          t,
          "rolls-app",
          dev.sebridge.config.Configuration.of(
              Map.of(
                  "fleet.kafka.bootstrap-servers", kafka.bootstrapServers(),
                  "fleet.partitions", "2",
                  "fleet.replication-factor", "1",
                  "fleet.state-dir", "/tmp/unused")),
          false);
      // (the controller has it when the call returns; the broker describes it a moment later)
      for (String rolled : List.of(t.of(FleetTopology.VIEWS_VMS), vmState)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> config(admin, rolled, "segment.ms").equals("60000"));
      }
      assertThat(config(admin, t.of(FleetTopology.VIEWS_EVENTS), "segment.ms")).isEqualTo("30000");
      assertThat(config(admin, t.of(FleetTopology.VIEWS_REQUESTS), "segment.ms")).isEqualTo(week);
    }
    java.util.Properties own =
        FleetStreamsConfig.of(
            dev.sebridge.config.Configuration.of(
                Map.of("fleet.kafka.bootstrap-servers", "x:9093", "fleet.state-dir", "/tmp/x")),
            Map.of());
    assertThat(own.get("topic.segment.ms")).isEqualTo("60000");
  }

  private static String config(Admin admin, String topic, String name) throws Exception {
    var resource =
        new org.apache.kafka.common.config.ConfigResource(
            org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
    return admin.describeConfigs(List.of(resource)).all().get().get(resource).get(name).value();
  }

  @Test
  void anAuditTopicWithOtherPartitionsThanTheResultsTopicStopsTheServiceNamingBoth()
      throws Exception {
    Topics t = topics("skewed");
    kafka.createTopic(t.approvals(), 3); // created by hand, before the service
    listed(t.envelopes(), t.commands(), t.approvals());
    try (Admin admin = kafka.admin()) {
      assertThatThrownBy(() -> FleetTopics.ensure(admin, t, 6, (short) 1))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("fleet.topic.approvals")
          .hasMessageContaining("skewed-approvals has 3 partitions")
          .hasMessageContaining("skewed-by-request has 6");
    }
  }

  @Test
  void aRolloutsTopicWithMoreThanOnePartitionStopsTheService() throws Exception {
    Topics t = topics("split");
    kafka.createTopic(t.of(FleetTopology.ROLLOUTS), 2);
    listed(t.envelopes(), t.commands(), t.of(FleetTopology.ROLLOUTS));
    try (Admin admin = kafka.admin()) {
      assertThatThrownBy(() -> FleetTopics.ensure(admin, t, 6, (short) 1))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("fleet.topic.prefix")
          .hasMessageContaining("split-rollouts has 2 partitions");
    }
  }

  /**
   * The replay gate against a real broker, with transactions as Kafka Streams writes them (their
   * commit markers take offsets too): a group that has not read the rollouts topic is not caught up
   * until it has read and committed everything there was when its task started; a group already at
   * the end is caught up at once, whatever arrives afterwards.
   */
  @Test
  void theReplayGateOpensOnceTheApplicationCommittedWhatTheTopicHeldAtStart() throws Exception {
    String topic = "gate-rollouts";
    kafka.createTopic(topic, 1);
    listed(topic);
    sendTransactionally(topic, "create", "approve", "abort");
    try (Admin admin = kafka.admin()) {
      RolloutsReplayGate gate = new RolloutsReplayGate(admin, "gate-app", topic);
      dev.sebridge.fleet.streams.ReplayGate.Check fresh = gate.start();
      assertThat(fresh.caughtUp()).as("nothing read yet").isFalse();
      try (var consumer = committedReader("gate-app")) {
        consumer.subscribe(List.of(topic));
        List<String> read = new java.util.ArrayList<>();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
                  return read.size() == 3;
                });
        assertThat(fresh.caughtUp()).as("read, not committed").isFalse();
        consumer.commitSync();
      }
      assertThat(fresh.caughtUp()).as("committed past the last commit marker").isTrue();

      sendTransactionally(topic, "create-again");
      assertThat(gate.start().caughtUp()).as("a task that starts behind the end replays").isFalse();
      assertThat(new RolloutsReplayGate(admin, "other-app", topic).start().caughtUp()).isFalse();
    }
    try (Admin admin = kafka.admin();
        var consumer = committedReader("gate-app")) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !consumer.poll(Duration.ofMillis(200)).isEmpty());
      consumer.commitSync();
      dev.sebridge.fleet.streams.ReplayGate.Check atEnd =
          new RolloutsReplayGate(admin, "gate-app", topic).start();
      assertThat(atEnd.caughtUp()).as("a task that starts at the end").isTrue();
      sendTransactionally(topic, "later");
      assertThat(atEnd.caughtUp()).as("what arrives after the start is no replay").isTrue();
    }
  }

  static void sendTransactionally(String topic, String... values) {
    java.util.Map<String, Object> p = new java.util.HashMap<>();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    p.put("transactional.id", "gate-writer-" + java.util.UUID.randomUUID());
    try (var producer =
        new org.apache.kafka.clients.producer.KafkaProducer<>(
            p,
            new org.apache.kafka.common.serialization.StringSerializer(),
            new org.apache.kafka.common.serialization.StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      for (String v : values) {
        producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, "r1", v));
      }
      producer.commitTransaction();
    }
  }

  static org.apache.kafka.clients.consumer.KafkaConsumer<String, String> committedReader(
      String group) {
    java.util.Map<String, Object> p = new java.util.HashMap<>();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    p.put("group.id", group);
    p.put("isolation.level", "read_committed");
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", false);
    return new org.apache.kafka.clients.consumer.KafkaConsumer<>(
        p,
        new org.apache.kafka.common.serialization.StringDeserializer(),
        new org.apache.kafka.common.serialization.StringDeserializer());
  }

  /**
   * The global views' lag as the global consumer of a real Kafka Streams client reports it: one
   * {@code records-lag} per partition of every view topic, 0 once running; an instance whose global
   * consumer reports more than {@link FleetReadiness#MAX_LAG} is not ready, whatever its local
   * stores say.
   */
  @Test
  void readinessCountsTheGlobalViewsLagAsTheGlobalConsumerReportsIt(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path stateDir) throws Exception {
    Topics t = topics("ready");
    listed(t.envelopes(), t.commands());
    try (Admin admin = kafka.admin()) {
      FleetTopics.ensure(admin, t, 1, (short) 1);
    }
    java.util.Properties p = new java.util.Properties();
    p.put("application.id", "ready-app");
    p.put("bootstrap.servers", kafka.bootstrapServers());
    p.put("state.dir", stateDir.toString());
    var issuer =
        new dev.sebridge.fleet.streams.CommandIssuer(
            new dev.sebridge.command.CommandSigner(
                new com.nimbusds.jose.jwk.gen.ECKeyGenerator(com.nimbusds.jose.jwk.Curve.P_256)
                    .keyID("k")
                    .generate(),
                "sebridge-fleet"),
            Duration.ofMinutes(5));
    try (var streams =
        new org.apache.kafka.streams.KafkaStreams(
            FleetTopology.build(t, issuer, 3, Duration.ofHours(1), TopologyObserver.all()), p)) {
      streams.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> streams.state() == org.apache.kafka.streams.KafkaStreams.State.RUNNING);
      var lags =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      streams.metrics().entrySet().stream()
                          .filter(e -> e.getKey().name().equals("records-lag"))
                          .filter(
                              e -> e.getKey().tags().get("client-id").endsWith("-global-consumer"))
                          .toList(),
                  l -> l.size() >= 5);
      assertThat(lags)
          .as("one per view topic's partition")
          .extracting(e -> e.getKey().tags().get("topic"))
          .contains(t.of(FleetTopology.VIEWS_ROLLOUTS), t.of(FleetTopology.VIEWS_POLICIES));
      assertThat(FleetReadiness.globalLag(streams.metrics())).isZero();
      FleetReadiness real = new FleetReadiness(streams, java.time.Clock.systemUTC());
      await().atMost(Duration.ofSeconds(30)).until(() -> real.problems().isEmpty());

      // The same metric names, as a global consumer 1,500 records behind would report them.
      java.util.Map<org.apache.kafka.common.MetricName, org.apache.kafka.common.Metric> behind =
          new java.util.HashMap<>();
      lags.forEach(e -> behind.put(e.getKey(), metric(e.getKey(), 300)));
      FleetReadiness lagging =
          new FleetReadiness(streams::state, () -> 0, () -> behind, java.time.Clock.systemUTC());
      assertThat(lags.size() * 300L).isGreaterThan(FleetReadiness.MAX_LAG);
      assertThat(lagging.problems())
          .containsExactly("global views " + lags.size() * 300L + " records behind");

      // The views gate reads the same client: its global consumer reports when it last polled
      // (a Kafka that stopped reporting it would leave the gate blind: this fails instead).
      var lastPoll = GlobalConsumerMetrics.lastPollSecondsAgo(streams.metrics());
      assertThat(lastPoll).as("last-poll-seconds-ago of the global consumer").isPresent();
      assertThat(lastPoll.getAsDouble()).isBetween(0.0, GlobalViewsGate.MAX_POLL_GAP_SECONDS);
      java.util.Set<String> decisive =
          java.util.Set.of(
              t.of(FleetTopology.VIEWS_VMS),
              t.of(FleetTopology.VIEWS_EVENTS),
              t.of(FleetTopology.VIEWS_REQUESTS));
      assertThat(new GlobalViewsGate(streams::metrics, decisive).behind()).isEmpty();
      var polled =
          streams.metrics().keySet().stream()
              .filter(n -> n.name().equals("last-poll-seconds-ago"))
              .filter(n -> n.tags().get("client-id").endsWith("-global-consumer"))
              .toList();
      assertThat(polled).hasSize(1);
      // As a global consumer far behind, then one held up applying what it fetched, reports it.
      java.util.Map<org.apache.kafka.common.MetricName, org.apache.kafka.common.Metric> far =
          new java.util.HashMap<>();
      lags.forEach(e -> far.put(e.getKey(), metric(e.getKey(), 4_000)));
      far.put(polled.get(0), metric(polled.get(0), 0));
      long decisiveBehind =
          lags.stream().filter(e -> decisive.contains(e.getKey().tags().get("topic"))).count()
              * 4_000L;
      assertThat(decisiveBehind).isGreaterThan(GlobalViewsGate.MAX_RECORDS_BEHIND);
      assertThat(new GlobalViewsGate(() -> far, decisive).behind())
          .hasValue(decisiveBehind + " records behind their topics");
      java.util.Map<org.apache.kafka.common.MetricName, org.apache.kafka.common.Metric> stalled =
          new java.util.HashMap<>();
      lags.forEach(e -> stalled.put(e.getKey(), metric(e.getKey(), 0)));
      stalled.put(polled.get(0), metric(polled.get(0), 9));
      assertThat(new GlobalViewsGate(() -> stalled, decisive).behind())
          .hasValue("their topics not read for 9 s");
    }
    issuer.close();
  }

  static org.apache.kafka.common.Metric metric(org.apache.kafka.common.MetricName name, double v) {
    return new org.apache.kafka.common.Metric() {
      @Override
      public org.apache.kafka.common.MetricName metricName() {
        return name;
      }

      @Override
      public Object metricValue() {
        return v;
      }
    };
  }

  /**
   * A rollout's record at its largest goes through a real broker with the service's own Streams
   * producer settings ({@link FleetStreamsConfig}: its size limit, compressed) to the views topic,
   * made by hand with the broker's defaults and raised by {@link FleetTopics} at start; a producer
   * with the client's defaults (1 MB) is refused.
   */
  @Test
  void aRolloutRecordOfTheLargestSizeGoesThroughWithTheServicesSettings() throws Exception {
    Topics t = topics("large");
    // Made before rollouts could be large (the broker's default limit): raised at start.
    kafka.createTopic(t.of(FleetTopology.VIEWS_ROLLOUTS), 1);
    listed(t.envelopes(), t.commands(), t.of(FleetTopology.VIEWS_ROLLOUTS));
    try (Admin admin = kafka.admin()) {
      FleetTopics.ensure(admin, t, 1, (short) 1);
    }
    String views = t.of(FleetTopology.VIEWS_ROLLOUTS);
    listed(views);
    // 12 MiB of JSON, as compressible as a rollout's VMs are.
    StringBuilder json = new StringBuilder("{\"vms\":{");
    for (int i = 0; json.length() < 12 * 1024 * 1024; i++) {
      json.append(
          String.format(
              "\"%08x-0000-4000-8000-%012x\":{\"phase\":\"back\",\"wave\":%d,"
                  + "\"approvedAt\":\"2026-11-25T10:%02d:%02dZ\"},",
              i, i, i % 97, i % 60, i % 60));
    }
    byte[] value = json.append("}}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.util.Properties streams =
        FleetStreamsConfig.of(
            dev.sebridge.config.Configuration.of(
                java.util.Map.of(
                    "fleet.kafka.bootstrap-servers",
                    kafka.bootstrapServers(),
                    "fleet.state-dir",
                    "/tmp/unused")),
            java.util.Map.of("bootstrap.servers", kafka.bootstrapServers()));
    java.util.Map<String, Object> producer = new java.util.HashMap<>();
    streams.forEach(
        (k, v) -> {
          if (k.toString().startsWith("producer.")) {
            producer.put(k.toString().substring("producer.".length()), v);
          }
        });
    producer.put("bootstrap.servers", kafka.bootstrapServers());
    try (var p = bytesProducer(producer)) {
      p.send(new org.apache.kafka.clients.producer.ProducerRecord<>(views, "big", value))
          .get(60, java.util.concurrent.TimeUnit.SECONDS);
    }
    try (var p = bytesProducer(java.util.Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      assertThatThrownBy(
              () ->
                  p.send(
                          new org.apache.kafka.clients.producer.ProducerRecord<>(
                              views, "big", value))
                      .get(60, java.util.concurrent.TimeUnit.SECONDS))
          .hasCauseInstanceOf(org.apache.kafka.common.errors.RecordTooLargeException.class);
    }
  }

  static org.apache.kafka.clients.producer.KafkaProducer<String, byte[]> bytesProducer(
      java.util.Map<String, Object> config) {
    return new org.apache.kafka.clients.producer.KafkaProducer<>(
        config,
        new org.apache.kafka.common.serialization.StringSerializer(),
        new org.apache.kafka.common.serialization.ByteArraySerializer());
  }
}
