package dev.sebridge.sink.eventhubs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.command.CommandPartitioning;
import dev.sebridge.config.Configuration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fleet sizes docs/eventhubs.md promises per tier, checked with the real routing (partition and
 * consumer group from the vmId): at the documented size, a random fleet puts a sixth reader on some
 * partition of some consumer group (which the service refuses) in about 1% of fleets or fewer; at
 * three times that size, in most fleets. So the table is neither padded nor needlessly small. The
 * groups are the tier's consumer-group quota less {@code $Default}, which counts toward it.
 */
class FleetCapacityTest {

  /** The share of random fleets of {@code agents} where some partition and group has over 5. */
  static double overflowRate(int agents, int partitions, int groups, int fleets, long seed) {
    Configuration config =
        Configuration.of(
            Map.of(
                "commands.eventhubs.consumer-group",
                "sebridge",
                "commands.eventhubs.consumer-groups",
                Integer.toString(groups)));
    Random random = new Random(seed);
    int overflowing = 0;
    for (int f = 0; f < fleets; f++) {
      Map<String, Integer> readers = new HashMap<>();
      boolean over = false;
      for (int i = 0; i < agents && !over; i++) {
        String vmId = new UUID(random.nextLong(), random.nextLong()).toString();
        String slot =
            CommandPartitioning.partitionFor(vmId, partitions)
                + "/"
                + EventHubsCommandSourceProvider.consumerGroup(config, vmId);
        over = readers.merge(slot, 1, Integer::sum) > 5;
      }
      if (over) {
        overflowing++;
      }
    }
    return (double) overflowing / fleets;
  }

  @ParameterizedTest(name = "{0}: {1} partitions x {2} groups supports {3} agents")
  @CsvSource({
    "Basic, 32, 1, 30",
    "Standard, 32, 19, 320",
    "Premium, 100, 99, 3000",
  })
  void theDocumentedFleetSizeHolds(String tier, int partitions, int groups, int agents) {
    double atSize = overflowRate(agents, partitions, groups, 400, 1);
    double atTriple = overflowRate(3 * agents, partitions, groups, 100, 2);
    System.out.printf(
        "%s: %d agents overflow in %.1f%% of fleets, %d agents in %.0f%%%n",
        tier, agents, 100 * atSize, 3 * agents, 100 * atTriple);
    assertThat(atSize).as("overflow rate at the documented size").isLessThanOrEqualTo(0.03);
    assertThat(atTriple).as("overflow rate at three times the size").isGreaterThan(0.5);
  }
}
