package dev.sebridge.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.streams.FleetTopology;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** The tallies follow each key's newest value: silent agents in key order, open events counted. */
public class ViewTalliesTest {
  static VmView silent(String vmId, boolean silent) {
    return new VmView(
        vmId, null, null, null, null, null, null, null, null, null, null, null, null, null, silent,
        null, null);
  }

  static EventView event(boolean open) {
    return new EventView(
        "e",
        "Reboot",
        "Platform",
        null,
        null,
        null,
        null,
        null,
        null,
        open ? null : java.time.Instant.parse("2026-11-26T10:00:00Z"),
        null);
  }

  /**
   * The silent agents' list is told to change (the page's live stream then tells its silent
   * section) when an agent falls silent, a silent one's view changes, one is heard again or its
   * view is dropped; not at a live agent's heartbeat, nor when a live agent's view is dropped.
   * Before, the section was told at every change of the VMs' view: at 100,000 VMs, every tick.
   */
  @Test
  void theSilentListIsToldOnlyWhenWhatItShowsChanged() {
    java.util.concurrent.atomic.AtomicInteger told =
        new java.util.concurrent.atomic.AtomicInteger();
    ViewTallies t = new ViewTallies().onSilentChange(told::incrementAndGet);
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", false));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", false)); // a heartbeat
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-b", silent("vm-b", false));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-b", null); // a live agent's view dropped
    assertThat(told).hasValue(0);
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", true)); // fell silent
    assertThat(told).hasValue(1);
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", true)); // its view changed
    assertThat(told).hasValue(2);
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", false)); // heard again
    assertThat(told).hasValue(3);
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-c", silent("vm-c", true));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-c", null); // a silent agent's view dropped
    assertThat(told).hasValue(5);
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e1", event(true));
    assertThat(told).hasValue(5);
  }

  @Test
  void silentAgentsAndOpenEventsFollowTheNewestValueOfEachKey() {
    ViewTallies t = new ViewTallies();
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-c", silent("vm-c", true));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", true));
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-b", silent("vm-b", false));
    assertThat(t.silentKeys().stream().limit(1)).containsExactly("vm-a");
    assertThat(t.silentKeys()).containsExactly("vm-a", "vm-c");
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-a", silent("vm-a", false)); // heard again
    t.keyChanged(FleetTopology.VMS_VIEW, "vm-c", null); // view dropped
    assertThat(t.silentCount()).isZero();
    // The keys the API pages through follow the views: a dropped view's key goes with it.
    assertThat(t.vmKeys()).containsExactly("vm-a", "vm-b");
    assertThat(t.silent("vm-a")).isFalse();

    t.keyChanged(FleetTopology.EVENTS_VIEW, "e1", event(true));
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e2", event(true));
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e1", event(false)); // closed, kept a while
    assertThat(t.openEvents()).isEqualTo(1);
    assertThat(t.openEventViews()).containsOnlyKeys("e2");
    assertThat(t.eventKeys()).containsExactly("e1", "e2");
    t.keyChanged(FleetTopology.EVENTS_VIEW, "e2", null);
    assertThat(t.openEvents()).isZero();
    assertThat(t.eventKeys()).containsExactly("e1");
    assertThat(t.openEventViews()).isEmpty();
    // other views are not counted
    t.keyChanged(FleetTopology.REQUESTS_VIEW, "r1", event(true));
    assertThat(t.openEvents()).isZero();
  }

  public static RequestView request(String id, List<String> outcomes) {
    Map<String, RequestView.VmResult> vms = new LinkedHashMap<>();
    List<String> vmIds = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      vmIds.add("vm-" + i);
      vms.put(
          "vm-" + i, new RequestView.VmResult(id + ":vm-" + i, outcomes.get(i), null, null, null));
    }
    return new RequestView(
        new ApprovalRequest(id, "e", vmIds, "r", "sre", Instant.EPOCH, "api", null, null, null),
        Instant.EPOCH,
        vms);
  }

  /**
   * Any history of request views (results arriving, requests retried under the same id, deleted by
   * retention, deleted twice): the outcome counts are a recount of the newest value of each key.
   */
  @Property(tries = 200)
  void outcomeCountsAreARecountOfTheNewestRequestViews(@ForAll long seed) {
    Random rnd = new Random(seed);
    List<String> kinds =
        java.util.Arrays.asList(null, "accepted", "rejected", "failed", "dry-run", "refused");
    ViewTallies t = new ViewTallies();
    Map<String, RequestView> newest = new HashMap<>();
    for (int step = 0; step < 60; step++) {
      String key = "r" + rnd.nextInt(8);
      if (rnd.nextInt(4) == 0) {
        newest.remove(key);
        t.keyChanged(FleetTopology.REQUESTS_VIEW, key, null);
      } else {
        List<String> outcomes = new ArrayList<>();
        for (int v = rnd.nextInt(6); v >= 0; v--) {
          outcomes.add(kinds.get(rnd.nextInt(kinds.size())));
        }
        RequestView r = request(key, outcomes);
        newest.put(key, r);
        t.keyChanged(FleetTopology.REQUESTS_VIEW, key, r);
      }
      Map<String, Long> recount = new TreeMap<>();
      newest
          .values()
          .forEach(
              r ->
                  r.vms()
                      .values()
                      .forEach(
                          vm ->
                              recount.merge(
                                  vm.outcome() == null ? "waiting" : vm.outcome(), 1L, Long::sum)));
      assertThat(t.outcomes()).as("step %d", step).isEqualTo(recount);
      assertThat(t.requestsCounted()).isEqualTo(newest.size());
    }
  }

  @Test
  void outcomesPastTheCapAreCountedAsOtherAndNothingIsLost() {
    ViewTallies t = new ViewTallies();
    List<String> many = new ArrayList<>();
    for (int i = 0; i < ViewTallies.MAX_OUTCOMES + 5; i++) {
      many.add("outcome-" + i);
    }
    t.keyChanged(FleetTopology.REQUESTS_VIEW, "r1", request("r1", many));
    Map<String, Long> by = t.outcomes();
    assertThat(by.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(many.size());
    assertThat(by).containsKey("other").hasSize(ViewTallies.MAX_OUTCOMES - 1);
    t.keyChanged(FleetTopology.REQUESTS_VIEW, "r1", null);
    assertThat(t.outcomes()).isEmpty();
    assertThat(t.requestsCounted()).isZero();
  }

  /** The kept keys' order is the stores': their UTF-8 bytes, unsigned. */
  @Property(tries = 500)
  void theKeysAreInTheStoresOrder(@ForAll long seed) {
    Random r = new Random(seed);
    String[] parts = {
      "a",
      "Z",
      "-",
      "\u00e9",
      "\uFF21",
      "\uD83D\uDE00",
      "\uD83D\uDE01",
      "\uDBFF\uDFFF",
      "\uE000",
      "0",
      ""
    };
    String a = "";
    String b = "";
    for (int i = 0; i < r.nextInt(4); i++) {
      a += parts[r.nextInt(parts.length)];
      b += parts[r.nextInt(parts.length)];
    }
    int bytes =
        java.util.Arrays.compareUnsigned(
            a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(Integer.signum(ViewTallies.STORE_ORDER.compare(a, b)))
        .as("%s vs %s", a, b)
        .isEqualTo(Integer.signum(bytes));
  }
}
