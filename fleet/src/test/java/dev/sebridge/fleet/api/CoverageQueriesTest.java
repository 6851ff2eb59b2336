package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import org.junit.jupiter.api.Test;

/** Without an inventory every coverage answer, and the VM list's inventory filter, is a 404. */
class CoverageQueriesTest {
  final CoverageQueries none =
      new CoverageQueries(
          new FleetViews(() -> null, () -> null, () -> null, () -> null, () -> null),
          null,
          () -> null,
          Clock.systemUTC());

  @Test
  void withoutAnInventoryEachAnswerIsA404NamingTheKeys() {
    for (Runnable r :
        new Runnable[] {
          none::requireInventory,
          none::counts,
          () ->
              none.withoutAgent(
                  FleetQueries.Page.of(java.util.Map.of(), CoverageQueries.WITHOUT_AGENT))
        }) {
      assertThatThrownBy(r::run)
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> org.assertj.core.api.Assertions.assertThat(e.status()).isEqualTo(404))
          .hasMessageContaining("fleet.inventory.subscriptions");
    }
  }
}
