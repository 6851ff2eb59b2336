package dev.sebridge.fleet;

import dev.sebridge.config.ConfigException;
import dev.sebridge.config.ConfigProblem;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.fleet.streams.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The "topics are pre-created" mode ({@code fleet.topics.pre-created}, Event Hubs, a cluster where
 * the service may not manage topics): every topic the service and its Kafka Streams read and write
 * is checked at start (it exists; its partitions where the topology depends on them; compacted or
 * deleting; kept long enough) and nothing is created or altered. Every difference is named at once
 * (exit 2), before anything runs.
 */
final class PreCreatedTopics {
  static final String KEY = "fleet.topics.pre-created";

  private PreCreatedTopics() {}

  /**
   * What a topic must be.
   *
   * @param partitions the partitions it must have, or null for any
   * @param compact compacted (views, changelogs), deleting (the service's other topics), or null
   *     for any (the agents' topics)
   * @param minRetention the least it must keep records, or null
   * @param why what depends on it, for the message
   */
  record Expected(Integer partitions, Boolean compact, Duration minRetention, String why) {}

  /**
   * Every topic, as the service and its topology ({@code applicationId}) need it; {@code
   * envelopePartitions} null: the envelopes topic's, as found. The envelopes topic comes first.
   */
  static Map<String, Expected> expected(
      Topics topics,
      String applicationId,
      Integer envelopePartitions,
      int partitions,
      Duration history) {
    Map<String, Expected> m = new LinkedHashMap<>();
    m.put(topics.envelopes(), new Expected(null, null, null, "the agents' envelopes"));
    m.put(topics.commands(), new Expected(null, null, null, "the agents' commands"));
    for (String view : FleetTopology.VIEW_TOPICS) {
      m.put(topics.of(view), new Expected(null, true, null, "a view: the latest record per key"));
    }
    m.put(
        topics.of(FleetTopology.ROLLOUTS),
        new Expected(
            1, false, history, "one task decides every rollout; replayed after a failover"));
    m.put(
        topics.approvals(),
        new Expected(
            partitions,
            false,
            history,
            "the audit trail, joined with -by-request partition by partition"));
    m.put(
        topics.of(FleetTopology.BY_REQUEST),
        new Expected(partitions, false, Duration.ofDays(1), "agents' results by request"));
    m.put(
        topics.of(FleetTopology.BY_EVENT),
        new Expected(partitions, false, Duration.ofDays(1), "VMs' reports by event"));
    String changelog = applicationId + "-%s-changelog";
    m.put(
        String.format(changelog, FleetTopology.VM_STATE),
        new Expected(envelopePartitions, true, null, "Kafka Streams' changelog of vm-state"));
    m.put(
        String.format(changelog, FleetTopology.EVENT_STATE),
        new Expected(partitions, true, null, "Kafka Streams' changelog of event-state"));
    m.put(
        String.format(changelog, FleetTopology.REQUEST_STATE),
        new Expected(partitions, true, null, "Kafka Streams' changelog of request-state"));
    for (String store :
        List.of(
            FleetTopology.ROLLOUT_STATE,
            FleetTopology.ROLLOUT_PARTS_STATE,
            FleetTopology.POLICY_STATE,
            FleetTopology.LEDGER_STATE)) {
      m.put(
          String.format(changelog, store),
          new Expected(1, true, null, "Kafka Streams' changelog of " + store));
    }
    return m;
  }

  /** Checks every topic; a {@link ConfigException} names each difference. */
  static void verify(Admin admin, Map<String, Expected> expected) throws InterruptedException {
    List<ConfigProblem> problems = new ArrayList<>();
    Map<String, TopicDescription> found = new HashMap<>();
    var described = admin.describeTopics(expected.keySet()).topicNameValues();
    for (String topic : expected.keySet()) {
      try {
        found.put(topic, described.get(topic).get(60, TimeUnit.SECONDS));
      } catch (ExecutionException e) {
        problems.add(
            new ConfigProblem(
                KEY,
                e.getCause() instanceof UnknownTopicOrPartitionException
                    ? "topic " + topic + " does not exist (" + expected.get(topic).why() + ")"
                    : "cannot describe topic " + topic + ": " + e.getCause().getMessage()));
      } catch (java.util.concurrent.TimeoutException e) {
        problems.add(new ConfigProblem(KEY, "no answer describing topic " + topic));
      }
    }
    Map<ConfigResource, Config> configs;
    try {
      configs = configs(admin, found.keySet());
    } catch (IllegalStateException e) {
      problems.add(new ConfigProblem(KEY, e.getMessage()));
      throw new ConfigException(problems);
    }
    // The vm-state changelog has the envelopes topic's partitions, whatever they are.
    TopicDescription envelopes = found.get(expected.keySet().iterator().next());
    String vmChangelog =
        expected.keySet().stream()
            .filter(t -> t.endsWith("-" + FleetTopology.VM_STATE + "-changelog"))
            .findFirst()
            .orElse(null);
    if (envelopes != null
        && vmChangelog != null
        && expected.get(vmChangelog).partitions() == null) {
      Expected x = expected.get(vmChangelog);
      expected = new LinkedHashMap<>(expected);
      expected.put(
          vmChangelog,
          new Expected(envelopes.partitions().size(), x.compact(), x.minRetention(), x.why()));
    }
    final Map<String, Expected> wanted = expected;
    found.forEach(
        (topic, d) -> {
          Expected x = wanted.get(topic);
          int n = d.partitions().size();
          if (x.partitions() != null && n != x.partitions()) {
            problems.add(
                new ConfigProblem(
                    KEY,
                    String.format(
                        "topic %s has %d partitions; it must have %d (%s)",
                        topic, n, x.partitions(), x.why())));
          }
          Config c = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, topic));
          String cleanup = value(c, "cleanup.policy", "unknown");
          java.util.Set<String> policies =
              java.util.Arrays.stream(cleanup.toLowerCase(java.util.Locale.ROOT).split(","))
                  .map(String::trim)
                  .collect(java.util.stream.Collectors.toSet());
          long retention = Long.parseLong(value(c, "retention.ms", "604800000"));
          // A compacted topic that also deletes keeps a key only for retention.ms: a view or a
          // store would lose what did not change for that long.
          boolean compacted =
              policies.contains("compact") && (!policies.contains("delete") || retention < 0);
          boolean deleting = policies.equals(java.util.Set.of("delete"));
          if (x.compact() != null && !(x.compact() ? compacted : deleting)) {
            problems.add(
                new ConfigProblem(
                    KEY,
                    String.format(
                        "topic %s has cleanup.policy=%s%s; it must be %s (%s)",
                        topic,
                        cleanup,
                        policies.contains("delete") ? " and retention.ms=" + retention : "",
                        x.compact() ? "compact" : "delete",
                        x.why())));
          }
          if (x.minRetention() != null) {
            if (retention >= 0 && retention < x.minRetention().toMillis()) {
              problems.add(
                  new ConfigProblem(
                      KEY,
                      String.format(
                          "topic %s keeps records %s; it must keep them at least %s (%s)",
                          topic, Duration.ofMillis(retention), x.minRetention(), x.why())));
            }
          }
        });
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }

  private static Map<ConfigResource, Config> configs(Admin admin, java.util.Set<String> topics)
      throws InterruptedException {
    if (topics.isEmpty()) {
      return Map.of();
    }
    List<ConfigResource> resources =
        topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    try {
      return admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot read the topics' settings: " + e.getMessage(), e);
    }
  }

  private static String value(Config c, String name, String otherwise) {
    ConfigEntry e = c == null ? null : c.get(name);
    return e == null || e.value() == null ? otherwise : e.value();
  }
}
