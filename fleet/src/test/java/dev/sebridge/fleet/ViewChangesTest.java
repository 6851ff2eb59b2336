package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.streams.FleetTopology;
import org.junit.jupiter.api.Test;

/** What the page's live stream counts as a change of a view. */
class ViewChangesTest {
  /**
   * A deleted key is a change of its view, as a written one is: an inventory entry Azure deleted
   * makes its silent VM unknown on the page, and the silent section must hear of it. Before, only
   * writes were counted, and such a page kept the old mark until something else changed.
   */
  @Test
  void aDeletionIsAChange() {
    ViewChanges c = new ViewChanges();
    c.viewChanged(FleetTopology.INVENTORY_VIEW);
    assertThat(c.version(FleetTopology.INVENTORY_VIEW)).isEqualTo(1);
    c.keyChanged(FleetTopology.INVENTORY_VIEW, "vm-1", "an entry"); // told by viewChanged
    assertThat(c.version(FleetTopology.INVENTORY_VIEW)).isEqualTo(1);
    c.keyChanged(FleetTopology.INVENTORY_VIEW, "vm-1", null);
    assertThat(c.version(FleetTopology.INVENTORY_VIEW)).isEqualTo(2);
    assertThat(c.version(FleetTopology.EVENTS_VIEW)).isZero();
  }

  /**
   * A mark taken after a change was counted covers it, and an instance has applied a mark only once
   * everything it covers was told (the record's done, not just started): another instance's page
   * asks with it, and the section it gets must show that change.
   */
  @Test
  void aMarkCoversWhatWasCountedAndIsAppliedOnceAllOfItWasTold() {
    ViewChanges told = new ViewChanges(); // the instance that told the page
    told.viewHeld(FleetTopology.EVENTS_VIEW);
    told.viewRecordStarted(FleetTopology.EVENTS_VIEW, 0, 41);
    told.viewChanged(FleetTopology.EVENTS_VIEW);
    told.viewRecordDone(FleetTopology.EVENTS_VIEW, 0, 41);
    told.viewRecordStarted(FleetTopology.EVENTS_VIEW, 1, 7);
    told.viewChanged(FleetTopology.EVENTS_VIEW); // counted, its record not done yet
    ViewMark mark =
        told.mark(java.util.List.of(FleetTopology.EVENTS_VIEW, FleetTopology.POLICIES_VIEW));
    assertThat(mark.toString()).isEqualTo("events-view@0:41,1:7");
    assertThat(told.applied(mark)).as("its record 1:7 is not done").isFalse();
    told.viewRecordDone(FleetTopology.EVENTS_VIEW, 1, 7);
    assertThat(told.applied(mark)).isTrue();

    ViewChanges other = new ViewChanges(); // the instance the page asks
    other.viewHeld(FleetTopology.EVENTS_VIEW);
    other.viewHeld(FleetTopology.POLICIES_VIEW);
    assertThat(other.applied(mark)).as("holds the view, applied nothing of it").isFalse();
    other.viewRecordStarted(FleetTopology.EVENTS_VIEW, 0, 40);
    other.viewRecordDone(FleetTopology.EVENTS_VIEW, 0, 40);
    assertThat(other.applied(mark)).isFalse();
    other.viewRecordStarted(FleetTopology.EVENTS_VIEW, 0, 41);
    other.viewRecordDone(FleetTopology.EVENTS_VIEW, 0, 41);
    assertThat(other.applied(mark)).as("nothing of partition 1 yet").isFalse();
    other.viewRecordStarted(FleetTopology.EVENTS_VIEW, 1, 7);
    assertThat(other.applied(mark)).as("started, not done").isFalse();
    other.viewRecordDone(FleetTopology.EVENTS_VIEW, 1, 7);
    assertThat(other.applied(mark)).isTrue();
    other.viewRecordDone(FleetTopology.EVENTS_VIEW, 1, 9);
    assertThat(other.applied(mark)).as("further on").isTrue();
    assertThat(other.applied(ViewMark.NONE)).isTrue();
    assertThat(new ViewChanges().applied(ViewMark.NONE)).isTrue();
    // A store this instance does not hold (the inventory's view, not turned on here yet) does not
    // hold the section back.
    assertThat(other.applied(ViewMark.parse("events-view@1:7;inventory-view@0:5"))).isTrue();
  }

  /**
   * A request waits for the instance to apply the page's mark, woken by the global thread as it
   * does (not by polling), and gives up at its bound.
   */
  @Test
  void aWaitEndsWhenTheMarkIsAppliedOrAtItsBound() throws Exception {
    ViewChanges c = new ViewChanges();
    c.viewHeld(FleetTopology.VMS_VIEW);
    c.viewRecordStarted(FleetTopology.VMS_VIEW, 2, 98);
    c.viewRecordDone(FleetTopology.VMS_VIEW, 2, 98);
    ViewMark mark = ViewMark.parse("vms-view@2:100");
    long before = System.nanoTime();
    assertThat(c.awaitApplied(mark, java.time.Duration.ofMillis(200))).isFalse();
    assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(200_000_000L);

    java.util.concurrent.CompletableFuture<Boolean> waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return c.awaitApplied(mark, java.time.Duration.ofSeconds(60));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> c.waiting() == 1);
    c.viewRecordDone(FleetTopology.VMS_VIEW, 2, 99);
    assertThat(waiting).isNotDone();
    c.viewRecordDone(FleetTopology.VMS_VIEW, 2, 100);
    assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(c.waiting()).isZero();
  }

  /**
   * At most {@link ViewChanges#MAX_WAITING} requests wait at once; the next is answered "not
   * applied" at once (the page asks again a second later): an instance that is behind does not fill
   * the page's pool with waits.
   */
  @Test
  void atMostEightRequestsWaitAtOnce() throws Exception {
    ViewChanges c = new ViewChanges();
    c.viewHeld(FleetTopology.VMS_VIEW);
    c.viewRecordDone(FleetTopology.VMS_VIEW, 0, 1);
    ViewMark mark = ViewMark.parse("vms-view@0:2");
    java.util.List<java.util.concurrent.CompletableFuture<Boolean>> waits =
        new java.util.ArrayList<>();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(ViewChanges.MAX_WAITING);
    try {
      for (int i = 0; i < ViewChanges.MAX_WAITING; i++) {
        waits.add(
            java.util.concurrent.CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return c.awaitApplied(mark, java.time.Duration.ofSeconds(60));
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                },
                pool));
      }
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> c.waiting() == ViewChanges.MAX_WAITING);
      long before = System.nanoTime();
      assertThat(c.awaitApplied(mark, java.time.Duration.ofSeconds(60))).isFalse();
      assertThat(System.nanoTime() - before).as("at once").isLessThan(5_000_000_000L);
      c.viewRecordDone(FleetTopology.VMS_VIEW, 0, 2);
      for (var w : waits) {
        assertThat(w.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
