package dev.sebridge.fleet;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.Configuration;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The topics the fleet service needs: the agents' envelopes and commands topics must exist (they
 * belong to the fleet, not to this service); its own (views, repartitioning, the audit topic) are
 * created when missing: views compacted, the audit topic kept a year.
 */
final class FleetTopics {
  private FleetTopics() {}

  /**
   * The topics as the configuration says: pre-created ones checked ({@link PreCreatedTopics}), or
   * the service's own created when missing, with the rollouts' state changelog (made by Streams
   * before rollouts were stored in parts) raised to take the largest record.
   */
  static void prepare(
      Admin admin, Topics topics, String applicationId, Configuration config, boolean inventory)
      throws InterruptedException {
    if (config.get(FleetKeys.TOPICS_PRE_CREATED)) {
      Map<String, PreCreatedTopics.Expected> expected =
          PreCreatedTopics.expected(
              topics,
              applicationId,
              null,
              config.get(FleetKeys.PARTITIONS),
              config.get(FleetKeys.HISTORY_RETENTION));
      if (topics.centralEvents()) {
        expected.put(
            topics.of(FleetTopology.AGENTLESS_EVENTS),
            new PreCreatedTopics.Expected(
                null, false, null, "Azure's central scheduled events (fleet.central-events)"));
      }
      if (topics.acknowledgements()) {
        expected.put(
            topics.of(FleetTopology.ACKNOWLEDGEMENTS),
            new PreCreatedTopics.Expected(
                null,
                false,
                null,
                "orders to acknowledge through Azure's Maintenance API (fleet.acknowledge.enabled)"));
      }
      if (inventory) {
        expected.put(
            topics.of(FleetTopology.INVENTORY),
            new PreCreatedTopics.Expected(
                null, true, null, "Azure's inventory: the latest record per VM"));
      }
      PreCreatedTopics.verify(admin, expected);
      return;
    }
    ensure(
        admin,
        topics,
        config.get(FleetKeys.PARTITIONS),
        config.get(FleetKeys.REPLICATION).shortValue());
    String changelog = applicationId + "-" + FleetTopology.ROLLOUT_STATE + "-changelog";
    try {
      Set<String> names = admin.listTopics().names().get(60, TimeUnit.SECONDS);
      if (names.contains(changelog)) {
        TopicSettings.largeEnough(admin, changelog);
      }
      // Streams sets topic.segment.ms on the changelogs it creates, never on those that exist.
      for (String name : names) {
        if (name.startsWith(applicationId + "-") && name.endsWith("-changelog")) {
          TopicSettings.rollsOften(admin, name);
        }
      }
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot list the topics: " + e, e);
    }
  }

  static void ensure(Admin admin, Topics topics, int partitions, short replication)
      throws InterruptedException {
    Set<String> existing;
    try {
      existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(
          "cannot list the topics of the cluster: " + e.getMessage(), e);
    }
    for (var required :
        Map.of(
                FleetKeys.ENVELOPES_TOPIC.name(), topics.envelopes(),
                FleetKeys.COMMANDS_TOPIC.name(), topics.commands())
            .entrySet()) {
      if (!existing.contains(required.getValue())) {
        throw new ConfigException(
            required.getKey(), "topic " + required.getValue() + " does not exist");
      }
    }
    List<NewTopic> create = new ArrayList<>();
    Map<String, String> compact =
        Map.of(
            "cleanup.policy",
            "compact",
            "segment.ms",
            Long.toString(TopicSettings.VIEW_SEGMENT.toMillis()));
    Map<String, String> week = Map.of("retention.ms", Long.toString(Duration.ofDays(7).toMillis()));
    add(create, existing, topics.of(FleetTopology.VIEWS_VMS), partitions, replication, compact);
    add(create, existing, topics.of(FleetTopology.VIEWS_EVENTS), partitions, replication, compact);
    add(
        create,
        existing,
        topics.of(FleetTopology.VIEWS_REQUESTS),
        partitions,
        replication,
        compact);
    add(
        create,
        existing,
        topics.of(FleetTopology.VIEWS_ROLLOUTS),
        1,
        replication,
        Map.of(
            "cleanup.policy",
            "compact",
            "segment.ms",
            Long.toString(TopicSettings.VIEW_SEGMENT.toMillis()),
            "max.message.bytes",
            Integer.toString(FleetTopology.MAX_RECORD_BYTES)));
    add(create, existing, topics.of(FleetTopology.VIEWS_ROLLOUT_PARTS), 1, replication, compact);
    add(create, existing, topics.of(FleetTopology.VIEWS_POLICIES), 1, replication, compact);
    // Azure's inventory (fleet.inventory.*): one record per VM Azure lists, tombstones for those
    // it no longer does. Created whether used or not: a service that turns the inventory on later
    // finds it.
    add(create, existing, topics.of(FleetTopology.INVENTORY), partitions, replication, compact);
    add(
        create,
        existing,
        topics.of(FleetTopology.ROLLOUTS),
        1,
        replication,
        Map.of("retention.ms", Long.toString(Duration.ofDays(365).toMillis())));
    add(create, existing, topics.of(FleetTopology.BY_EVENT), partitions, replication, week);
    if (topics.centralEvents()) {
      // Azure writes it (Event Grid); made here where the service manages its topics, as a
      // week's buffer like the repartition topics.
      add(
          create,
          existing,
          topics.of(FleetTopology.AGENTLESS_EVENTS),
          partitions,
          replication,
          week);
    }
    add(create, existing, topics.of(FleetTopology.BY_REQUEST), partitions, replication, week);
    // Orders to acknowledge through Azure's Maintenance API (fleet.acknowledge.enabled): an order
    // lives a command's lifetime, a week is for reading what happened. Created whether used or
    // not, like the inventory's.
    add(create, existing, topics.of(FleetTopology.ACKNOWLEDGEMENTS), partitions, replication, week);
    add(
        create,
        existing,
        topics.approvals(),
        partitions,
        replication,
        Map.of("retention.ms", Long.toString(Duration.ofDays(365).toMillis())));
    if (!create.isEmpty()) {
      create(admin, create);
    }
    Map<String, Integer> created = new java.util.HashMap<>();
    create.forEach(t -> created.put(t.name(), t.numPartitions()));
    checkPartitions(admin, topics, created);
    String views = topics.of(FleetTopology.VIEWS_ROLLOUTS);
    if (existing.contains(views)) {
      TopicSettings.largeEnough(admin, views);
    }
    List<String> compacted = new ArrayList<>(FleetTopology.VIEW_TOPICS);
    compacted.add(FleetTopology.INVENTORY);
    for (String view : compacted) {
      if (existing.contains(topics.of(view))) {
        TopicSettings.rollsOften(admin, topics.of(view));
      }
    }
  }

  /**
   * What the topology relies on and a topic created by hand could break: the request processor
   * joins the audit topic with {@code <prefix>-by-request} partition by partition (a mismatch sends
   * agents' results to a task that never sees their request, silently), and every rollout, policy
   * and operator's approval is decided by the one task of the single-partition rollouts topic (the
   * fleet-wide ledger has one writer).
   */
  static void checkPartitions(Admin admin, Topics topics, Map<String, Integer> created)
      throws InterruptedException {
    int audit = partitions(admin, topics.approvals(), created);
    String byRequest = topics.of(FleetTopology.BY_REQUEST);
    int results = partitions(admin, byRequest, created);
    if (audit != results) {
      throw new ConfigException(
          FleetKeys.APPROVALS_TOPIC.name(),
          String.format(
              "topic %s has %d partitions and %s has %d: they must have the same number (the"
                  + " agents' results are matched to their requests partition by partition)",
              topics.approvals(), audit, byRequest, results));
    }
    String rollouts = topics.of(FleetTopology.ROLLOUTS);
    int rolloutPartitions = partitions(admin, rollouts, created);
    if (rolloutPartitions != 1) {
      throw new ConfigException(
          FleetKeys.TOPIC_PREFIX.name(),
          String.format(
              "topic %s has %d partitions; it must have exactly 1 (one task decides every rollout"
                  + " and approval against the fleet-wide ledger)",
              rollouts, rolloutPartitions));
    }
  }

  private static void create(Admin admin, List<NewTopic> create) throws InterruptedException {
    try {
      admin.createTopics(create).all().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException(
            "cannot create the fleet service's topics: " + e.getCause().getMessage(), e);
      }
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("no answer creating the fleet service's topics", e);
    }
  }

  private static void add(
      List<NewTopic> create,
      Set<String> existing,
      String name,
      int partitions,
      short replication,
      Map<String, String> configs) {
    if (!existing.contains(name)) {
      create.add(new NewTopic(name, partitions, replication).configs(configs));
    }
  }

  /**
   * How many partitions a topic has: a topic created a moment ago has the partitions it was created
   * with (and a broker may not list it yet), so only topics found in the cluster are described.
   */
  private static int partitions(Admin admin, String topic, Map<String, Integer> created)
      throws InterruptedException {
    Integer n = created.get(topic);
    return n != null ? n : partitions(admin, topic);
  }

  /** How many partitions a topic has. */
  static int partitions(Admin admin, String topic) throws InterruptedException {
    try {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .size();
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot describe topic " + topic + ": " + e.getMessage(), e);
    }
  }
}
