package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.FleetMetrics;
import dev.sebridge.fleet.ViewTallies;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

/**
 * The gauges tallied as the views change show the tallies while the views can be read, and NaN once
 * they cannot (the streams stopped): never a last tally as if current. A scrape reads no VM view.
 */
class MetricsTalliesTest {
  @Test
  void talliedGaugesFollowTheViewsAndAreNanOnceTheyCannotBeRead() {
    MapStore<VmView> vms = new MapStore<>();
    MapStore<dev.sebridge.fleet.model.RequestView> requests = new MapStore<>();
    AtomicBoolean stopped = new AtomicBoolean();
    FleetViews views =
        new FleetViews(
            () -> {
              if (stopped.get()) {
                throw new InvalidStateStoreException("the streams are not running");
              }
              return vms;
            },
            MapStore::new,
            () -> requests,
            MapStore::new,
            MapStore::new);
    ViewTallies tallies = new ViewTallies();
    FleetMetrics metrics = new FleetMetrics(Clock.systemUTC());
    metrics.views(views, tallies);
    VmView silent =
        new VmView(
            "vm-1", null, null, null, null, null, null, null, null, null, null, null, null, null,
            true, null, null);
    vms.map.put("vm-1", silent);
    vms.map.put("vm-2", VmView.unknown("vm-2"));
    tallies.keyChanged(FleetTopology.VMS_VIEW, "vm-1", silent);
    tallies.keyChanged(FleetTopology.VMS_VIEW, "vm-2", VmView.unknown("vm-2"));

    var request =
        dev.sebridge.fleet.ViewTalliesTest.request(
            "r1", java.util.Arrays.asList("accepted", "accepted", null));
    requests.map.put("r1", request);
    tallies.keyChanged(FleetTopology.REQUESTS_VIEW, "r1", request);

    assertThat(metrics.scrape())
        .contains("sebridge_fleet_vms 2.0")
        .contains("sebridge_fleet_silent_agents 1.0")
        .contains("sebridge_fleet_open_events 0.0")
        .contains("sebridge_fleet_approval_results{outcome=\"accepted\"} 2.0")
        .contains("sebridge_fleet_approval_results{outcome=\"waiting\"} 1.0");
    assertThat(vms.scans.get()).as("no scan of the VM views").isZero();
    assertThat(requests.scans.get()).as("no scan of the requests").isZero();

    stopped.set(true);
    assertThat(metrics.scrape())
        .contains("sebridge_fleet_vms NaN")
        .contains("sebridge_fleet_silent_agents NaN")
        .contains("sebridge_fleet_open_events NaN")
        // the outcomes keep their last values
        .contains("sebridge_fleet_approval_results{outcome=\"accepted\"} 2.0");
  }

  /**
   * Gauges of a supplier nothing else holds (a method reference made for them) read it after a
   * garbage collection. Micrometer holds a gauge's object weakly by default: the inventory's age
   * read NaN from the first full GC on, and the rollouts' owner gauge did in FleetFailoverTest.
   */
  @Test
  void gaugesOfSuppliersNothingElseHoldsOutliveAGarbageCollection() {
    FleetMetrics metrics = new FleetMetrics(Clock.systemUTC());
    java.time.Instant readAt = java.time.Instant.now();
    metrics.inventory(new dev.sebridge.fleet.inventory.Coverage(), () -> readAt);
    metrics.rolloutsOwner(() -> true);
    java.lang.ref.WeakReference<Object> canary = new java.lang.ref.WeakReference<>(new Object());
    for (int i = 0; i < 50 && canary.get() != null; i++) {
      System.gc();
    }
    assertThat(canary.get()).as("a collection that clears weak references ran").isNull();
    assertThat(metrics.scrape())
        .contains("sebridge_fleet_rollouts_owner 1.0")
        .doesNotContain("sebridge_fleet_inventory_age_seconds NaN")
        .contains("sebridge_fleet_inventory_age_seconds ");
  }

  /** The rollouts task's tick as its metric shows it: the count, and the slowest of the window. */
  @Test
  void theRolloutsTicksAreTimed() {
    FleetMetrics metrics = new FleetMetrics(Clock.systemUTC());
    metrics.rolloutsTicked(java.time.Duration.ofMillis(40));
    metrics.rolloutsTicked(java.time.Duration.ofMillis(250));
    assertThat(metrics.scrape())
        .contains("sebridge_fleet_rollouts_tick_seconds_count 2")
        .contains("sebridge_fleet_rollouts_tick_seconds_max 0.25")
        .contains("sebridge_fleet_rollouts_tick_seconds{quantile=\"0.99\"}");
  }
}
