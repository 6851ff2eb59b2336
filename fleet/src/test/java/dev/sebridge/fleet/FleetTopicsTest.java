package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sebridge.config.ConfigException;
import dev.sebridge.fleet.streams.FleetTopology;
import dev.sebridge.sink.kafka.embedded.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The topics the service creates or finds, against a real broker: what it refuses to start on. */
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

  static FleetTopology.Topics topics(String prefix) {
    kafka.createTopic(prefix + "-envelopes", 3);
    kafka.createTopic(prefix + "-commands", 3);
    return new FleetTopology.Topics(
        prefix, prefix + "-envelopes", prefix + "-commands", prefix + "-approvals");
  }

  /** Until the broker lists these topics (a new topic's metadata reaches it a moment later). */
  static void listed(String... names) {
    try (Admin admin = kafka.admin()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.listTopics().names().get().containsAll(List.of(names)));
    }
  }

  @Test
  void freshTopicsAreCreatedAlignedAndTheRolloutsTopicHasOnePartition() throws Exception {
    FleetTopology.Topics t = topics("fresh");
    listed(t.envelopes(), t.commands());
    try (Admin admin = kafka.admin()) {
      FleetTopics.ensure(admin, t, 6, (short) 1);
      listed(t.approvals(), t.of(FleetTopology.BY_REQUEST), t.of(FleetTopology.ROLLOUTS));
      assertThat(FleetTopics.partitions(admin, t.approvals())).isEqualTo(6);
      assertThat(FleetTopics.partitions(admin, t.of(FleetTopology.BY_REQUEST))).isEqualTo(6);
      assertThat(FleetTopics.partitions(admin, t.of(FleetTopology.ROLLOUTS))).isEqualTo(1);
    }
  }

  @Test
  void anAuditTopicWithOtherPartitionsThanTheResultsTopicStopsTheServiceNamingBoth()
      throws Exception {
    FleetTopology.Topics t = topics("skewed");
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
    FleetTopology.Topics t = topics("split");
    kafka.createTopic(t.of(FleetTopology.ROLLOUTS), 2);
    listed(t.envelopes(), t.commands(), t.of(FleetTopology.ROLLOUTS));
    try (Admin admin = kafka.admin()) {
      assertThatThrownBy(() -> FleetTopics.ensure(admin, t, 6, (short) 1))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("fleet.topic.prefix")
          .hasMessageContaining("split-rollouts has 2 partitions");
    }
  }
}
