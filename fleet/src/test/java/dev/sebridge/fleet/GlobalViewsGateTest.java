package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

/**
 * The views gate on the global consumer's metrics, named as a real client names them ({@link
 * FleetTopicsTest} reads them from one): behind past either bound, fresh again only at half of it,
 * the views the rollouts task writes itself not counted, and closed when the client reports neither
 * metric.
 */
class GlobalViewsGateTest {
  private static final String CLIENT = "app-1-GlobalStreamThread-global-consumer";
  private final Map<MetricName, Metric> metrics = new HashMap<>();
  private final GlobalViewsGate gate =
      new GlobalViewsGate(() -> metrics, Set.of("p-views-vms", "p-views-events"));

  private void lag(String topic, int partition, double records) {
    MetricName n =
        new MetricName(
            "records-lag",
            "consumer-fetch-manager-metrics",
            "",
            Map.of("client-id", CLIENT, "topic", topic, "partition", Integer.toString(partition)));
    metrics.put(n, FleetTopicsTest.metric(n, records));
  }

  private void polled(double secondsAgo) {
    MetricName n =
        new MetricName(
            "last-poll-seconds-ago", "consumer-metrics", "", Map.of("client-id", CLIENT));
    metrics.put(n, FleetTopicsTest.metric(n, secondsAgo));
  }

  @Test
  void behindPastEitherBoundAndFreshAgainOnlyAtHalfOfIt() {
    lag("p-views-vms", 0, 6_000);
    lag("p-views-events", 0, 4_000);
    polled(0);
    assertThat(gate.behind()).isEmpty();
    lag("p-views-events", 0, 4_001);
    assertThat(gate.behind()).hasValue("10001 records behind their topics");
    lag("p-views-vms", 0, 1_000);
    assertThat(gate.behind())
        .as("5,001: still behind")
        .hasValue("5001 records behind their topics");
    lag("p-views-events", 0, 4_000);
    assertThat(gate.behind()).as("5,000: fresh").isEmpty();

    polled(6);
    assertThat(gate.behind()).hasValue("their topics not read for 6 s");
    polled(3);
    assertThat(gate.behind()).as("3 s: still behind").isPresent();
    polled(2);
    assertThat(gate.behind()).isEmpty();
    polled(5);
    assertThat(gate.behind()).as("5 s is the bound").isEmpty();
  }

  /** A large step fills the rollouts' own views: their lag holds nothing. */
  @Test
  void theViewsTheRolloutsTaskWritesItselfAreNotCounted() {
    lag("p-views-vms", 0, 0);
    lag("p-views-rollout-parts", 0, 20_000);
    polled(0);
    assertThat(gate.behind()).isEmpty();
  }

  /**
   * Kafka spells a topic's dots as underscores in the metric's tag: a prefix with dots is matched
   * as it spells it. Until 2026-11-29 (found in review) such a prefix held every rollout for good.
   */
  @Test
  void aTopicPrefixWithDotsIsMatchedAsTheMetricsSpellIt() {
    GlobalViewsGate dotted = new GlobalViewsGate(() -> metrics, Set.of("prod.fleet-views-vms"));
    lag("prod_fleet-views-vms", 0, 12_000);
    polled(0);
    assertThat(dotted.behind()).hasValue("12000 records behind their topics");
    lag("prod_fleet-views-vms", 0, 0);
    assertThat(dotted.behind()).isEmpty();
  }

  @Test
  void aClientThatReportsNeitherHoldsAndSaysWhy() {
    assertThat(gate.behind()).hasValueSatisfying(why -> assertThat(why).contains("records-lag"));
    lag("p-views-vms", 0, Double.NaN); // before its first fetch
    polled(0);
    assertThat(gate.behind()).isPresent();
    lag("p-views-vms", 0, 0);
    polled(-1); // before its first poll
    assertThat(gate.behind())
        .hasValueSatisfying(why -> assertThat(why).contains("last-poll-seconds-ago"));
    polled(0);
    assertThat(gate.behind()).isEmpty();
  }
}
