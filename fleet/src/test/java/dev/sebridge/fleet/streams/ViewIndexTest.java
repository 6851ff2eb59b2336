package dev.sebridge.fleet.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.ApprovalRequest;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.fleet.model.RequestView;
import dev.sebridge.fleet.model.VmEventState;
import dev.sebridge.fleet.model.VmView;
import dev.sebridge.fleet.rollout.ListedVms;
import dev.sebridge.fleet.rollout.ObservedReleases;
import dev.sebridge.fleet.rollout.World;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * The aggregates the rollouts task reads each tick ({@link ViewIndex} through {@link GlobalWorld})
 * against a brute-force recomputation: every answer a rollout, the ledger and the policies ask,
 * computed by scanning the stores as the global updaters left them. The histories contain what a
 * running instance sees: changes before the task attaches, a task that leaves and comes back, a
 * queue that overflows while the task does not step, a global store restored from its topic behind
 * the updaters' back, and (in its own test) a global thread changing the stores while the task
 * steps.
 */
class ViewIndexTest {
  static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");
  static final List<List<String>> GROUPINGS =
      List.of(
          List.of(),
          List.of("zone"),
          List.of("scaleSet"),
          List.of("zone", "scaleSet"),
          List.of("resourceGroup", "location"));

  /**
   * The whole reads run off the task's thread, held until the history runs them; while one reads,
   * the stores change under it (told, and untold: drift) and the task steps on, taking changes in.
   */
  @Property(tries = 300)
  void everyAnswerIsWhatAScanOfTheStoresGives(@ForAll long seed) {
    Random rnd = new Random(seed);
    HeldReads reads = new HeldReads();
    Fleet f = new Fleet(rnd, new ViewIndex(Membership.AGENTS, reads));
    Instant[] now = {T0};
    boolean[] stale = {false}; // a change the index was not told of, not yet repaired
    boolean[] untold = {false};
    // An untold change since the held read was started: that read may not repair it.
    boolean[] untoldSinceRead = {false};
    reads.onStart = () -> untoldSinceRead[0] = false;
    Runnable untoldChange =
        () -> {
          f.change(rnd, false); // a change no updater told the index of
          stale[0] = true;
          untold[0] = true;
          untoldSinceRead[0] = true;
        };
    Runnable step =
        () -> {
          now[0] = now[0].plusSeconds(1);
          int before = f.index.reads();
          f.world.newStep(now[0]);
          if (f.index.reads() > before) {
            stale[0] = untoldSinceRead[0]; // read whole, and taken into use
          }
          if (!stale[0]) {
            f.assertSameAsAScan(rnd);
          }
        };
    for (int i = 0; i < 40 + rnd.nextInt(200); i++) {
      int op = rnd.nextInt(100);
      if (op < 76) {
        f.change(rnd, true);
      } else if (op < 79) {
        untoldChange.run();
      } else if (op < 82) {
        f.index.detach(); // the rollouts task moved away, and back
        f.change(rnd, true);
        f.index.attach();
      } else if (op < 85) {
        now[0] = now[0].plus(ViewIndex.REBUILD_EVERY); // starts a whole read, if none runs
        f.world.newStep(now[0]);
      } else if (op < 88) {
        // The held read runs; while it reads, the stores change and the task steps.
        boolean[] inside = {false};
        f.whileReading(
            () -> {
              if (inside[0]) {
                return; // a step's own whole read (after an attach): not interleaved further
              }
              inside[0] = true;
              int what = rnd.nextInt(12);
              if (what < 3) {
                f.change(rnd, true);
              } else if (what < 4) {
                untoldChange.run();
              } else if (what < 6) {
                step.run();
              }
              inside[0] = false;
            });
        reads.runAll();
        f.whileReading(() -> {});
      } else {
        step.run();
      }
    }
    // Two more whole reads, the second with nothing untold since it began: no drift is left.
    for (int last = 0; last < 2; last++) {
      now[0] = now[0].plus(ViewIndex.REBUILD_EVERY);
      f.world.newStep(now[0]);
      reads.runAll();
      now[0] = now[0].plusSeconds(1);
      f.world.newStep(now[0]);
    }
    f.assertSameAsAScan(rnd);
    if (!untold[0]) {
      assertThat(f.index.repairs()).as("whole reads that found a difference").isZero();
    }
  }

  /** Holds each whole read the index starts until the test runs it. */
  static final class HeldReads implements java.util.concurrent.Executor {
    final java.util.ArrayDeque<Runnable> held = new java.util.ArrayDeque<>();
    Runnable onStart = () -> {};

    @Override
    public void execute(Runnable read) {
      held.add(read);
      onStart.run();
    }

    void runAll() {
      while (!held.isEmpty()) {
        held.poll().run();
      }
    }
  }

  @Test
  void aGlobalThreadChangingTheStoresWhileTheTaskStepsLeavesNothingBehind() throws Exception {
    for (long seed = 0; seed < 20; seed++) {
      Random rnd = new Random(seed);
      Fleet f = new Fleet(rnd, new ViewIndex(Membership.AGENTS));
      f.world.newStep(T0);
      CountDownLatch done = new CountDownLatch(1);
      Thread global =
          new Thread(
              () -> {
                Random r = new Random(rnd.nextLong());
                for (int i = 0; i < 5_000; i++) {
                  f.change(r, true);
                }
                done.countDown();
              },
              "global-thread");
      global.start();
      // Every other step is due a whole read, which runs on a thread of its own (the index's
      // own, as in production) while the global thread writes the stores and the task steps.
      Instant now = T0;
      for (int steps = 0; !done.await(0, TimeUnit.MILLISECONDS); steps++) {
        now = now.plus(steps % 2 == 0 ? ViewIndex.REBUILD_EVERY : Duration.ofSeconds(1));
        f.world.newStep(now);
      }
      global.join();
      f.world.newStep(now.plusSeconds(1));
      f.assertSameAsAScan(rnd);
      // A whole read that began after the last change, taken into use: the same answers.
      int before = f.index.reads();
      Instant[] at = {now.plus(ViewIndex.REBUILD_EVERY)};
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                at[0] = at[0].plus(ViewIndex.REBUILD_EVERY);
                f.world.newStep(at[0]);
                return f.index.reads() > before + 1;
              });
      f.assertSameAsAScan(rnd);
    }
  }

  @Test
  void aGroupingAskedForIsCountedOnceThenMovedVmByVm() {
    Random rnd = new Random(7);
    ViewIndex index = new ViewIndex(Membership.AGENTS, Runnable::run);
    Fleet f = new Fleet(rnd, index);
    f.world.newStep(T0);
    f.world.groupSize(List.of("scaleSet"), "scaleSet=ss-0");
    // Told to the index and not put in the store: only the change can make the count move (a
    // count taken by scanning the store again would not).
    VmView v =
        new VmView(
            "vm-new", "vm-new", null, null, "rg-0", "west", "1", "ss-0", "1", T0, T0, T0, 60, null,
            false, null);
    int before = f.scan().groupSize(List.of("scaleSet"), "scaleSet=ss-0");
    index.changed(FleetTopology.VMS_VIEW, "vm-new", v);
    f.world.newStep(T0.plusSeconds(1));
    assertThat(f.world.groupSize(List.of("scaleSet"), "scaleSet=ss-0")).isEqualTo(before + 1);
  }

  /**
   * Two agents spelling one resource group in two cases (Azure's Compute answers it in upper case
   * for some VMs) are two VMs of one group, named in lower case: one limit for both.
   */
  @Test
  void aResourceGroupSpeltInTwoCasesIsOneGroup() {
    ViewIndex index = new ViewIndex(Membership.AGENTS, Runnable::run);
    Fleet f = new Fleet(new Random(7), index);
    f.world.newStep(T0);
    List<String> byGroup = List.of("resourceGroup");
    assertThat(f.world.groupSize(byGroup, "resourceGroup=case-rg")).isZero();
    for (String[] vm : new String[][] {{"vm-upper", "CASE-RG"}, {"vm-lower", "case-rg"}}) {
      index.changed(
          FleetTopology.VMS_VIEW,
          vm[0],
          new VmView(
              vm[0], vm[0], null, null, vm[1], "west", "1", "ss-0", "1", T0, T0, T0, 60, null,
              false, null));
    }
    f.world.newStep(T0.plusSeconds(1));
    assertThat(f.world.groupSize(byGroup, "resourceGroup=case-rg")).isEqualTo(2);
    assertThat(f.world.groupSize(byGroup, "resourceGroup=CASE-RG")).isZero();
  }

  /**
   * With an inventory, only a view stamped known counts, while the inventory lists it: one stamped
   * unknown, or not stamped at all (written before the inventory was configured), is in no group
   * and not known.
   */
  @Test
  void withAnInventoryOnlyViewsStampedKnownCount() {
    Random rnd = new Random(11);
    ViewIndex index = new ViewIndex(Membership.INVENTORY, Runnable::run);
    Fleet f = new Fleet(rnd, index);
    f.world.newStep(T0);
    int before = f.world.groupSize(List.of("scaleSet"), "scaleSet=ss-9");
    assertThat(before).as("the test fleet's views are not stamped").isZero();
    for (dev.sebridge.fleet.model.InventoryState s :
        new dev.sebridge.fleet.model.InventoryState[] {
          null,
          dev.sebridge.fleet.model.InventoryState.UNKNOWN,
          dev.sebridge.fleet.model.InventoryState.KNOWN
        }) {
      VmView v =
          new VmView(
              "vm-" + s, "vm-" + s, null, null, "rg-0", "west", "1", "ss-9", "1", T0, T0, T0, 60,
              null, false, null, s);
      index.changed(FleetTopology.VMS_VIEW, v.vmId(), v);
    }
    for (String id : List.of("vm-null", "vm-UNKNOWN", "vm-KNOWN")) {
      dev.sebridge.fleet.model.InventoryVm listed =
          new dev.sebridge.fleet.model.InventoryVm(
              id,
              "/subscriptions/s1/resourceGroups/rg-0/providers/Microsoft.Compute/virtualMachines/"
                  + id,
              id,
              "s1",
              "rg-0",
              "west",
              "1",
              "ss-9",
              null,
              Map.of());
      index.changed(FleetTopology.INVENTORY_VIEW, id, listed);
    }
    f.world.newStep(T0.plusSeconds(1));
    assertThat(f.world.groupSize(List.of("scaleSet"), "scaleSet=ss-9")).isEqualTo(1);
    assertThat(f.world.known("vm-KNOWN")).isTrue();
    assertThat(f.world.known("vm-UNKNOWN")).isFalse();
    assertThat(f.world.known("vm-null")).isFalse();
    assertThat(f.world.known("no-view")).isFalse();
  }

  /**
   * With an inventory, a known VM is where the inventory puts it now: moved to another resource
   * group (down, sending nothing, or before its next envelope), its attributes, its group's size
   * and the other group's follow the inventory's refresh at once, and the same after the stores are
   * read whole. Before, they followed its view, stamped at its last envelope, until its next one.
   */
  @Test
  void withAnInventoryAKnownVmIsWhereTheInventoryPutsItNow() {
    ViewIndex index = new ViewIndex(Membership.INVENTORY, Runnable::run);
    MapStore<VmView> vms = new MapStore<>();
    MapStore<dev.sebridge.fleet.model.InventoryVm> inventory = new MapStore<>();
    GlobalWorld world =
        new GlobalWorld(
            new ViewIndex.Stores(vms, new MapStore<>(), new MapStore<>(), inventory), index, true);
    index.attach();
    String main = "/subscriptions/s1/resourceGroups/main";
    String moved = "/subscriptions/s1/resourceGroups/moved";
    java.util.function.BiConsumer<String, dev.sebridge.fleet.model.InventoryVm> listed =
        (id, v) -> {
          inventory.set(id, v);
          index.changed(FleetTopology.INVENTORY_VIEW, id, v);
        };
    listed.accept("vm-k", inventoryVm("vm-k", main, "web-k", "1"));
    VmView k = knownVm(inventory.get("vm-k"));
    vms.set("vm-k", k);
    index.changed(FleetTopology.VMS_VIEW, "vm-k", k);
    List<String> byGroup = List.of("resourceGroup");
    world.newStep(T0); // (the first step reads the stores whole; the changes below are taken in)
    assertThat(world.groupSize(byGroup, "resourceGroup=main")).isEqualTo(1);
    listed.accept("vm-k", inventoryVm("vm-k", moved, "web-k", "1"));
    world.newStep(T0.plusSeconds(1));
    assertThat(world.attribute("vm-k", "resourceGroup")).isEqualTo("moved");
    assertThat(world.groupSize(byGroup, "resourceGroup=main")).isZero();
    assertThat(world.groupSize(byGroup, "resourceGroup=moved")).isEqualTo(1);
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY).plusSeconds(1)); // read whole: the same
    assertThat(world.attribute("vm-k", "resourceGroup")).isEqualTo("moved");
    assertThat(world.groupSize(byGroup, "resourceGroup=moved")).isEqualTo(1);
    // Its next envelope, stamped where it is now; then the inventory drops it (deleted, or out of
    // the inventory's scope): where its view has it, changed by changes as read whole.
    VmView k2 = VmViews.withInventory(k, inventory.get("vm-k"));
    vms.set("vm-k", k2);
    index.changed(FleetTopology.VMS_VIEW, "vm-k", k2);
    listed.accept("vm-k", inventoryVm("vm-k", main, "web-k", "1"));
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY).plusSeconds(2));
    assertThat(world.attribute("vm-k", "resourceGroup")).as("moved back").isEqualTo("main");
    // Dropped (deleted by a scale-in, out of the inventory's scope): unknown from that refresh,
    // out of its group's size at once, as its next envelope would stamp it; where its view has it.
    // Before, it stayed in the size until it went silent, 15 minutes later.
    inventory.set("vm-k", null);
    index.changed(FleetTopology.INVENTORY_VIEW, "vm-k", null);
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY).plusSeconds(3));
    assertThat(world.attribute("vm-k", "resourceGroup")).as("its view's").isEqualTo("moved");
    assertThat(world.groupSize(byGroup, "resourceGroup=moved")).isZero();
    assertThat(world.groupSize(byGroup, "resourceGroup=main")).isZero();
    assertThat(world.known("vm-k")).isFalse();
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY.multipliedBy(2)).plusSeconds(4));
    assertThat(world.attribute("vm-k", "resourceGroup")).isEqualTo("moved");
    assertThat(world.groupSize(byGroup, "resourceGroup=moved")).as("read whole: the same").isZero();
    // Listed again: known, where the inventory puts it
    listed.accept("vm-k", inventoryVm("vm-k", main, "web-k", "1"));
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY.multipliedBy(2)).plusSeconds(5));
    assertThat(world.known("vm-k")).isTrue();
    assertThat(world.groupSize(byGroup, "resourceGroup=main")).isEqualTo(1);
    assertThat(index.repairs()).as("whole reads that found a difference").isZero();
  }

  /**
   * A known VM's facts follow its inventory record, so an inventory change told while the index is
   * read whole (after the step took in what was told, before the read ends) moves the VM's facts
   * too: both are still coming, and neither is a difference. Before, only the record's own key was
   * excused, and each such change logged a false "differed" warning and counted a repair.
   */
  @Test
  void anInventoryChangeToldWhileTheIndexIsReadWholeIsNoDifference() {
    ViewIndex index = new ViewIndex(Membership.INVENTORY, Runnable::run);
    MapStore<VmView> vmStore = new MapStore<>();
    MapStore<dev.sebridge.fleet.model.InventoryVm> inventory = new MapStore<>();
    Runnable[] duringRead = {null};
    ReadOnlyKeyValueStore<String, VmView> vms =
        new ReadOnlyKeyValueStore<>() {
          @Override
          public VmView get(String key) {
            return vmStore.get(key);
          }

          @Override
          public KeyValueIterator<String, VmView> range(String from, String to) {
            return vmStore.range(from, to);
          }

          @Override
          public KeyValueIterator<String, VmView> all() {
            Runnable r = duringRead[0]; // the global thread, while the read goes on
            duringRead[0] = null;
            if (r != null) {
              r.run();
            }
            return vmStore.all();
          }

          @Override
          public long approximateNumEntries() {
            return vmStore.approximateNumEntries();
          }
        };
    GlobalWorld world =
        new GlobalWorld(
            new ViewIndex.Stores(vms, new MapStore<>(), new MapStore<>(), inventory), index, true);
    index.attach();
    String main = "/subscriptions/s1/resourceGroups/main";
    inventory.set("vm-k", inventoryVm("vm-k", main, "web-k", "1"));
    VmView k = knownVm(inventory.get("vm-k"));
    vmStore.set("vm-k", k);
    world.newStep(T0); // read whole
    dev.sebridge.fleet.model.InventoryVm moved =
        inventoryVm("vm-k", "/subscriptions/s1/resourceGroups/moved", "web-k", "1");
    duringRead[0] =
        () -> {
          inventory.set("vm-k", moved);
          index.changed(FleetTopology.INVENTORY_VIEW, "vm-k", moved);
        };
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY)); // read whole, the change told meanwhile
    assertThat(duringRead[0]).as("the change came during the read").isNull();
    assertThat(index.repairs()).as("whole reads that found a difference").isZero();
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY).plusSeconds(1));
    assertThat(world.attribute("vm-k", "resourceGroup")).isEqualTo("moved");
    assertThat(world.groupSize(List.of("resourceGroup"), "resourceGroup=moved")).isEqualTo(1);
  }

  /**
   * With an inventory, a VM an event lists that reported nothing is placed by its name in the
   * event's resource group (of the event's ARM id, or of a VM the inventory knows that reported
   * it), with the inventory's attributes; a name the group does not tell apart, or an event whose
   * resource group nothing tells, stays a name. The same after the stores are read whole.
   */
  @Test
  void withAnInventoryAVmWithoutAnAgentIsPlacedByNameInItsEventsResourceGroup() {
    ViewIndex index = new ViewIndex(Membership.INVENTORY, Runnable::run);
    MapStore<VmView> vms = new MapStore<>();
    MapStore<EventView> events = new MapStore<>();
    MapStore<dev.sebridge.fleet.model.InventoryVm> inventory = new MapStore<>();
    GlobalWorld world =
        new GlobalWorld(
            new ViewIndex.Stores(vms, events, new MapStore<>(), inventory), index, true);
    index.attach();
    String main = "/subscriptions/s1/resourceGroups/Main";
    String other = "/subscriptions/s1/resourceGroups/other";
    java.util.function.BiConsumer<String, dev.sebridge.fleet.model.InventoryVm> listed =
        (id, v) -> {
          inventory.set(id, v);
          index.changed(FleetTopology.INVENTORY_VIEW, id, v);
        };
    listed.accept("vm-a", inventoryVm("vm-a", main, "web-a", "1"));
    listed.accept("vm-x", inventoryVm("vm-x", main, "Web-X", "2"));
    listed.accept("vm-y", inventoryVm("vm-y", other, "web-x", "3"));
    listed.accept("vm-z", inventoryVm("vm-z", other, "web-z", "3"));
    listed.accept("vm-z2", inventoryVm("vm-z2", other, "web-z", "1"));
    VmView a =
        new VmView(
            "vm-a",
            "web-a",
            null,
            null,
            "main",
            "west",
            "1",
            null,
            "1",
            T0,
            T0,
            T0,
            60,
            null,
            false,
            null,
            dev.sebridge.fleet.model.InventoryState.KNOWN);
    vms.set("vm-a", a);
    index.changed(FleetTopology.VMS_VIEW, "vm-a", a);
    java.util.function.BiConsumer<String, EventView> event =
        (id, e) -> {
          events.set(id, e);
          index.changed(FleetTopology.EVENTS_VIEW, id, e);
        };
    Map<String, VmEventState> byA =
        Map.of("vm-a", new VmEventState("vm-a", "web-a", "1", null, "scheduled", null, T0, null));
    // vm-a, which the inventory knows, reported it: its resource group is the event's
    event.accept("e-1", eventView("e-1", List.of("web-a", "web-x"), byA, null));
    // nothing tells its resource group
    event.accept("e-2", eventView("e-2", List.of("web-x"), Map.of(), null));
    // Azure's ARM id does; two VMs of that name there
    event.accept(
        "e-3",
        eventView(
            "e-3",
            List.of("web-x", "web-z"),
            Map.of(),
            new dev.sebridge.fleet.model.CentralReport(
                dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED,
                other
                    + "/providers/Microsoft.Compute/availabilitySets/as/providers"
                    + "/Microsoft.Maintenance/scheduledevents/e-3",
                List.of("web-x", "web-z"),
                T0,
                T0)));
    for (Instant at : List.of(T0, T0.plus(ViewIndex.REBUILD_EVERY))) {
      world.newStep(at);
      assertThat(world.placed("e-1", "web-x")).isEqualTo("vm-x");
      assertThat(world.attribute("vm-x", "zone")).isEqualTo("2");
      assertThat(ListedVms.of("e-1", world))
          .containsExactly(
              new ListedVms.Listed("vm-a", "web-a"), new ListedVms.Listed("vm-x", "web-x", true));
      assertThat(world.placed("e-2", "web-x")).as("no resource group").isNull();
      assertThat(ListedVms.unplaced("e-2", world)).containsExactly("web-x");
      assertThat(world.placed("e-3", "web-x")).isEqualTo("vm-y");
      assertThat(world.placed("e-3", "web-z")).as("two of that name there").isNull();
      assertThat(world.acknowledges()).isTrue();
      assertThat(world.azureStatus("e-3"))
          .isEqualTo(dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED);
    }
    // A view the inventory has not stamped (the agent's own claims): the inventory's place wins.
    VmView x =
        new VmView(
            "vm-x", "web-x", null, null, "MAIN", "west", "9", null, "1", T0, T0, T0, 60, null,
            false, null, null);
    vms.set("vm-x", x);
    index.changed(FleetTopology.VMS_VIEW, "vm-x", x);
    // An unknown vmId's report narrows an event Azure delivered: Azure's names still count.
    event.accept(
        "e-4",
        eventView(
            "e-4",
            List.of("web-z"),
            Map.of(
                "rogue",
                new VmEventState("rogue", "web-z", "1", null, "scheduled", null, T0, null)),
            new dev.sebridge.fleet.model.CentralReport(
                dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED,
                other
                    + "/providers/Microsoft.Compute/availabilitySets/as/providers"
                    + "/Microsoft.Maintenance/scheduledevents/e-4",
                List.of("WEB-X"),
                T0,
                T0)));
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY).plusSeconds(1));
    assertThat(world.attribute("vm-x", "zone")).isEqualTo("2");
    assertThat(world.resources("e-4")).containsExactly("web-z", "WEB-X");
    assertThat(ListedVms.of("e-4", world)).contains(new ListedVms.Listed("vm-y", "WEB-X", true));
    // The inventory drops vm-x: its name is no VM's any more.
    inventory.set("vm-x", null);
    index.changed(FleetTopology.INVENTORY_VIEW, "vm-x", null);
    world.newStep(T0.plus(ViewIndex.REBUILD_EVERY).plusSeconds(2));
    assertThat(world.placed("e-1", "web-x")).isNull();
    assertThat(world.attribute("vm-x", "zone")).as("its view's own, again").isEqualTo("9");
  }

  /** The view of VM vm-k (web-k) after an envelope, stamped from its inventory record. */
  static VmView knownVm(dev.sebridge.fleet.model.InventoryVm record) {
    return VmViews.withInventory(
        new VmView(
            "vm-k", "web-k", null, null, null, null, null, null, "1", T0, T0, T0, 60, null, false,
            null, null),
        record);
  }

  static dev.sebridge.fleet.model.InventoryVm inventoryVm(
      String vmId, String group, String name, String zone) {
    return new dev.sebridge.fleet.model.InventoryVm(
        vmId,
        group + "/providers/Microsoft.Compute/virtualMachines/" + name,
        name,
        "s1",
        group.substring(group.lastIndexOf('/') + 1),
        "west",
        zone,
        null,
        group.endsWith("other") ? "as" : null,
        Map.of());
  }

  static EventView eventView(
      String id,
      List<String> resources,
      Map<String, VmEventState> vms,
      dev.sebridge.fleet.model.CentralReport central) {
    return new EventView(
        id,
        "Reboot",
        "Platform",
        null,
        null,
        "",
        resources,
        T0,
        T0,
        null,
        vms,
        central,
        central == null
            ? dev.sebridge.fleet.model.Source.AGENT
            : dev.sebridge.fleet.model.Source.AZURE);
  }

  /**
   * A view the index cannot read (a VM part that is null) fails the step that takes it in, and
   * every step after it while the store has it: never a step on an index without the change.
   */
  @Test
  void aViewItCannotReadFailsEveryStepUntilTheStoresReadWhole() {
    Random rnd = new Random(3);
    Fleet f = new Fleet(rnd, new ViewIndex(Membership.AGENTS, Runnable::run));
    f.world.newStep(T0);
    Map<String, VmEventState> unreadable = new java.util.HashMap<>();
    unreadable.put("vm-1", null);
    EventView poison =
        new EventView(
            "e-1", "Reboot", "Platform", null, 60, "d", List.of(), T0, T0, null, unreadable);
    f.events.set("e-1", poison);
    f.index.changed(FleetTopology.EVENTS_VIEW, "e-1", poison);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.world.newStep(T0.plusSeconds(1)))
        .isInstanceOf(NullPointerException.class);
    // Until it tries again, every step fails at once (no whole read each second)...
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.world.newStep(T0.plusSeconds(2)))
        .hasMessageContaining("could not read the views");
    // ...then it reads the stores whole, which still have the view it cannot read.
    Instant retry = T0.plusSeconds(1).plus(ViewIndex.RETRY_AFTER_FAILURE);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.world.newStep(retry))
        .isInstanceOf(NullPointerException.class);
    f.change(rnd, true);
    EventView fixed = Fleet.event(rnd, "e-1");
    f.events.set("e-1", fixed);
    f.index.changed(FleetTopology.EVENTS_VIEW, "e-1", fixed);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.world.newStep(retry.plusSeconds(1)))
        .hasMessageContaining("could not read the views");
    f.world.newStep(retry.plus(ViewIndex.RETRY_AFTER_FAILURE));
    f.assertSameAsAScan(rnd);
  }

  /**
   * A whole read off the task's thread that meets a view it cannot read (one no updater told the
   * index of: a store restored behind their back) is done again on the task's thread, and the step
   * fails: never a step on an index the read found wrong. The steps while it ran went on.
   */
  @Test
  void aWholeReadOffTheThreadThatFailsIsDoneAgainOnItAndFailsTheStep() {
    Random rnd = new Random(11);
    HeldReads reads = new HeldReads();
    Fleet f = new Fleet(rnd, new ViewIndex(Membership.AGENTS, reads));
    f.world.newStep(T0);
    Map<String, VmEventState> unreadable = new java.util.HashMap<>();
    unreadable.put("vm-1", null);
    f.events.set(
        "e-1",
        new EventView(
            "e-1", "Reboot", "Platform", null, 60, "d", List.of(), T0, T0, null, unreadable));
    Instant due = T0.plus(ViewIndex.REBUILD_EVERY);
    f.world.newStep(due); // starts the read, and steps on
    f.change(rnd, true);
    f.world.newStep(due.plusSeconds(1)); // the read has not run: the step goes on
    reads.runAll();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.world.newStep(due.plusSeconds(2)))
        .isInstanceOf(NullPointerException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.world.newStep(due.plusSeconds(3)))
        .hasMessageContaining("could not read the views");
    f.events.set("e-1", Fleet.event(rnd, "e-1"));
    f.world.newStep(due.plusSeconds(2).plus(ViewIndex.RETRY_AFTER_FAILURE));
    f.assertSameAsAScan(rnd);
    assertThat(reads.held).as("no read started by the failure").isEmpty();
  }

  /**
   * Drift on a key whose told change still waits when a read starts is repaired by that read: what
   * waited is taken in before the read begins, not put on top of it. Before, it went on top, and
   * the read agreed with the index on the drifted key.
   */
  @Test
  void aReadRepairsDriftOnAKeyWhoseChangeWaitedWhenItBegan() {
    HeldReads reads = new HeldReads();
    Fleet f = new Fleet(new Random(13), new ViewIndex(Membership.AGENTS, reads));
    f.world.newStep(T0);
    VmView told = inZone("vm-7", "1");
    f.vms.set("vm-7", told);
    f.index.changed(FleetTopology.VMS_VIEW, "vm-7", told); // waits
    f.vms.set("vm-7", inZone("vm-7", "3")); // behind the updaters' back
    Instant due = T0.plus(ViewIndex.REBUILD_EVERY);
    f.world.newStep(due); // takes in zone 1, then starts the read
    reads.runAll();
    f.world.newStep(due.plusSeconds(1));
    assertThat(f.world.attribute("vm-7", "zone")).isEqualTo("3");
    assertThat(f.index.repairs()).isEqualTo(1);
  }

  /** What a step asked of an event last is asked again in the next, after the event changed. */
  @Test
  void aStepAnswersFromTheViewsAsOfThatStep() {
    Fleet f = new Fleet(new Random(19), new ViewIndex(Membership.AGENTS, Runnable::run));
    EventView open = openEvent("E-7");
    f.setAndTell("e-7", open);
    f.world.newStep(T0);
    assertThat(f.world.open("E-7")).isTrue();
    f.setAndTell("e-7", open.closedAt(T0.plusSeconds(1)));
    f.world.newStep(T0.plusSeconds(1));
    assertThat(f.world.open("E-7")).isFalse();
  }

  /**
   * A closed event's view is kept packed, and read back once while steps ask for it: a step after
   * the view changed (told, or untold and repaired by a whole read) answers from the new view, not
   * from the one read back before.
   */
  @Test
  void aClosedViewReadBackBeforeIsNotAnsweredOnceItChanged() {
    HeldReads reads = new HeldReads();
    Fleet f = new Fleet(new Random(17), new ViewIndex(Membership.AGENTS, reads));
    EventView closed = openEvent("E-9").closedAt(T0);
    VmEventState done = new VmEventState("vm-1", "vm-1", "1", "ss-0", "completed", null, T0, null);
    f.setAndTell("e-9", closed);
    f.world.newStep(T0);
    assertThat(f.world.eventVms("E-9")).isEmpty();
    EventView told = withVms(closed, Map.of("vm-1", done));
    f.setAndTell("e-9", told);
    f.world.newStep(T0.plusSeconds(1));
    assertThat(f.world.eventVms("E-9")).containsOnlyKeys("vm-1");
    // Behind the updaters' back, then a whole read taken into use: the repair, not the view read
    // back in the steps before.
    f.events.set("e-9", withVms(closed, Map.of("vm-2", done)));
    Instant due = T0.plus(ViewIndex.REBUILD_EVERY);
    f.world.newStep(due);
    assertThat(f.world.eventVms("E-9")).containsOnlyKeys("vm-1");
    reads.runAll();
    f.world.newStep(due.plusSeconds(1));
    assertThat(f.world.eventVms("E-9")).containsOnlyKeys("vm-2");
    assertThat(f.index.repairs()).isEqualTo(1);
  }

  static EventView withVms(EventView e, Map<String, VmEventState> vms) {
    return new EventView(
        e.eventId(),
        e.eventType(),
        e.eventSource(),
        e.notBefore(),
        e.durationInSeconds(),
        e.description(),
        e.resources(),
        e.firstSeenAt(),
        e.lastSeenAt(),
        e.closedAt(),
        vms,
        e.central(),
        e.firstSeenBy(),
        e.reportedAt());
  }

  /**
   * A view whose EventId is not its key in lower case (no updater writes one) is found by its key
   * only, as the stores would give it: not by the id it spells.
   */
  @Test
  void aViewIsFoundByItsKeyNotByAnIdThatIsNotIt() {
    Fleet f = new Fleet(new Random(23), new ViewIndex(Membership.AGENTS, Runnable::run));
    f.setAndTell("x-8", openEvent("E-8"));
    f.world.newStep(T0);
    assertThat(f.world.open("x-8")).isTrue();
    assertThat(f.world.open("E-8")).isFalse();
    assertThat(f.world.open("e-8")).isFalse();
  }

  /**
   * Without an inventory, Azure's Started counts for an event an agent of the fleet reported (IMDS
   * has no "approved": an approval from outside the fleet shows first there, while the VM it
   * reboots says nothing); an event only Azure reported may be another team's, and counts for
   * nothing.
   */
  @Test
  void withoutAnInventoryAzuresStartedCountsForAnEventAnAgentReported() {
    Fleet f = new Fleet(new Random(29), new ViewIndex(Membership.AGENTS, Runnable::run));
    dev.sebridge.fleet.model.CentralReport started =
        new dev.sebridge.fleet.model.CentralReport(
            dev.sebridge.fleet.agentless.AzureEventStatus.STARTED,
            "/subscriptions/s/providers/Microsoft.Maintenance/scheduledevents/x",
            List.of("web-1", "db-1"),
            T0,
            T0);
    EventView reported =
        new EventView(
                "X-1",
                "Reboot",
                "Platform",
                null,
                60,
                "d",
                List.of("web-1", "db-1"),
                T0,
                T0,
                null,
                Map.of(
                    "vm-1",
                    new VmEventState("vm-1", "web-1", "1", null, "scheduled", null, T0, null)))
            .withCentral(started, dev.sebridge.fleet.model.Source.AGENT);
    EventView azureOnly =
        new EventView(
                "X-2",
                "Reboot",
                "Platform",
                null,
                60,
                "d",
                List.of("other-1"),
                T0,
                T0,
                null,
                Map.of())
            .withCentral(started, dev.sebridge.fleet.model.Source.AZURE);
    for (EventView e : List.of(reported, azureOnly)) {
      f.setAndTell(e.eventId().toLowerCase(Locale.ROOT), e);
    }
    f.world.newStep(T0);
    assertThat(f.world.releasedByAzure("X-1")).isTrue();
    assertThat(f.world.releasedOpenEvents()).contains("X-1").doesNotContain("X-2");
    assertThat(f.world.releasedByAzure("X-2")).isFalse();
  }

  /**
   * Azure's Started for a VM of another resource group (another team's VM of the subscription)
   * whose name the inventory lists elsewhere is not the fleet's: counted, it held every group of
   * every rollout by name for an hour. The same name in the event's resource group is.
   */
  @Test
  void azuresWordCountsForAVmTheInventoryListsInTheEventsResourceGroupOnly() {
    ViewIndex index = new ViewIndex(Membership.INVENTORY, Runnable::run);
    MapStore<EventView> events = new MapStore<>();
    MapStore<dev.sebridge.fleet.model.InventoryVm> inventory = new MapStore<>();
    GlobalWorld world =
        new GlobalWorld(
            new ViewIndex.Stores(new MapStore<>(), events, new MapStore<>(), inventory),
            index,
            true);
    index.attach();
    String main = "/subscriptions/s1/resourceGroups/Main";
    inventory.set("vm-a", inventoryVm("vm-a", main, "web-0", "1"));
    index.changed(FleetTopology.INVENTORY_VIEW, "vm-a", inventory.get("vm-a"));
    for (String group : List.of("other", "MAIN", "moved")) {
      dev.sebridge.fleet.model.CentralReport started =
          new dev.sebridge.fleet.model.CentralReport(
              dev.sebridge.fleet.agentless.AzureEventStatus.STARTED,
              "/subscriptions/s1/resourceGroups/"
                  + group
                  + "/providers/Microsoft.Compute/virtualMachines/web-0/providers/"
                  + "Microsoft.Maintenance/scheduledEvents/x-"
                  + group,
              List.of("web-0"),
              T0,
              T0);
      EventView e =
          new EventView(
                  "X-" + group,
                  "Reboot",
                  "Platform",
                  null,
                  60,
                  "d",
                  List.of("web-0"),
                  T0,
                  T0,
                  null,
                  group.equals("moved")
                      // its agent reported it: a VM moved to another group before the refresh
                      ? Map.of(
                          "vm-a",
                          new VmEventState("vm-a", "web-0", "1", null, "scheduled", null, T0, null))
                      : Map.of())
              .withCentral(started, dev.sebridge.fleet.model.Source.AZURE);
      String key = e.eventId().toLowerCase(Locale.ROOT);
      events.set(key, e);
      index.changed(FleetTopology.EVENTS_VIEW, key, e);
    }
    world.newStep(T0);
    assertThat(world.azureListsFleetVm("X-other")).isFalse();
    assertThat(world.releasedByAzure("X-other")).isFalse();
    assertThat(world.azureListsFleetVm("X-MAIN")).isTrue();
    assertThat(world.releasedByAzure("X-MAIN")).isTrue();
    assertThat(world.releasedByAzure("X-moved"))
        .as("reported by a VM the inventory lists")
        .isTrue();
    // The inventory moves web-0 to the other group: Azure's word there names it now.
    inventory.set(
        "vm-a", inventoryVm("vm-a", "/subscriptions/s1/resourceGroups/other", "web-0", "1"));
    index.changed(FleetTopology.INVENTORY_VIEW, "vm-a", inventory.get("vm-a"));
    world.newStep(T0.plusSeconds(1));
    assertThat(world.releasedByAzure("X-other")).isTrue();
    assertThat(world.releasedByAzure("X-MAIN")).isFalse();
    // ... and the index's released open events follow the refresh at once, not the next rebuild.
    assertThat(world.releasedOpenEvents()).contains("X-other").doesNotContain("X-MAIN");
  }

  /** An open event of no VM's part. */
  static EventView openEvent(String id) {
    return new EventView(
        id, "Reboot", "Platform", null, 60, "d", List.of(), T0, T0, null, Map.of());
  }

  static VmView inZone(String vmId, String zone) {
    return new VmView(
        vmId, vmId, null, null, "rg-0", "west", zone, "ss-0", "1", T0, T0, T0, 60, null, false,
        null);
  }

  /** A read that never ends is let go once the next is due, and the next one starts. */
  @Test
  void aReadThatNeverEndsIsLetGoWhenTheNextIsDue() {
    HeldReads reads = new HeldReads();
    Random rnd = new Random(17);
    Fleet f = new Fleet(rnd, new ViewIndex(Membership.AGENTS, reads));
    f.world.newStep(T0);
    Instant due = T0.plus(ViewIndex.REBUILD_EVERY);
    f.world.newStep(due);
    assertThat(reads.held).hasSize(1);
    f.world.newStep(due.plus(ViewIndex.REBUILD_EVERY).minusSeconds(1));
    assertThat(reads.held).as("still waiting for the first").hasSize(1);
    f.world.newStep(due.plus(ViewIndex.REBUILD_EVERY));
    assertThat(reads.held).as("the next one started").hasSize(2);
    Runnable stuck = reads.held.poll();
    f.change(rnd, true);
    reads.runAll();
    stuck.run(); // ends late: nobody takes what it read
    f.world.newStep(due.plus(ViewIndex.REBUILD_EVERY).plusSeconds(1));
    f.assertSameAsAScan(rnd);
  }

  @Test
  void everyGroupingIsCountedRightPastTheMostKept() {
    Random rnd = new Random(5);
    Fleet f = new Fleet(rnd, new ViewIndex(Membership.AGENTS, Runnable::run));
    f.world.newStep(T0);
    Scan s = f.scan();
    for (int i = 0; i < GroupCounts.MOST + 10; i++) {
      List<String> g = new ArrayList<>();
      for (int n = 0; n <= i / 4; n++) {
        g.add(List.of("zone", "scaleSet", "resourceGroup", "location").get((i + n) % 4));
      }
      for (Map.Entry<String, Integer> c : s.groupSizes(g).entrySet()) {
        assertThat(f.world.groupSize(g, c.getKey())).isEqualTo(c.getValue());
      }
      f.change(rnd, true);
      f.world.newStep(T0.plusSeconds(i + 1));
      s = f.scan();
    }
  }

  /** Three stores as the global updaters keep them, the index told of each change. */
  static final class Fleet {
    final MapStore<VmView> vms = new MapStore<>();
    final MapStore<EventView> events = new MapStore<>();
    final MapStore<RequestView> requests = new MapStore<>();
    final ViewIndex index;
    final GlobalWorld world;

    Fleet(Random rnd, ViewIndex index) {
      this.index = index;
      this.world = new GlobalWorld(vms, events, requests, index);
      for (int i = 0; i < 20; i++) {
        change(rnd, false); // before the task attached: nobody queued them
      }
      index.attach();
    }

    /** The events store has this view under the key, and its updater tells the index. */
    void setAndTell(String key, EventView e) {
      events.set(key, e);
      index.changed(FleetTopology.EVENTS_VIEW, key, e);
    }

    /** What happens after each entry a whole read of any of the stores takes. */
    void whileReading(Runnable r) {
      vms.duringRead = r;
      events.duringRead = r;
      requests.duringRead = r;
    }

    /** A random change to one of the stores; {@code told}: its updater tells the index. */
    void change(Random rnd, boolean told) {
      int which = rnd.nextInt(3);
      String store;
      String key;
      Object value;
      if (which == 0) {
        key = "vm-" + rnd.nextInt(30);
        store = FleetTopology.VMS_VIEW;
        value = rnd.nextInt(6) == 0 ? null : vm(rnd, key);
        vms.set(key, (VmView) value);
      } else if (which == 1) {
        key = "e-" + rnd.nextInt(15);
        store = FleetTopology.EVENTS_VIEW;
        value = rnd.nextInt(6) == 0 ? null : event(rnd, key);
        events.set(key, (EventView) value);
      } else {
        key = "r-" + rnd.nextInt(15);
        store = FleetTopology.REQUESTS_VIEW;
        value = rnd.nextInt(6) == 0 ? null : request(rnd, key);
        requests.set(key, (RequestView) value);
      }
      if (told) {
        index.changed(store, key, value);
      }
    }

    static VmView vm(Random rnd, String vmId) {
      String zone = rnd.nextInt(4) == 0 ? null : Integer.toString(1 + rnd.nextInt(3));
      String ss = rnd.nextInt(4) == 0 ? null : "ss-" + rnd.nextInt(3);
      Instant hb = rnd.nextBoolean() ? null : T0.plusSeconds(rnd.nextInt(1000));
      return new VmView(
          vmId,
          vmId,
          null,
          null,
          "rg-" + rnd.nextInt(2),
          rnd.nextBoolean() ? "west" : "east",
          zone,
          ss,
          "1",
          hb,
          hb,
          hb,
          60,
          null,
          rnd.nextInt(4) == 0,
          null);
    }

    static EventView event(Random rnd, String key) {
      // The store's key is the lower-cased EventId; the view keeps Azure's spelling.
      String id = rnd.nextBoolean() ? key.toUpperCase(Locale.ROOT) : key;
      Map<String, VmEventState> states = new TreeMap<>();
      for (int i = 0; i < rnd.nextInt(3); i++) {
        String vm = "vm-" + rnd.nextInt(30);
        String status =
            List.of("scheduled", "started", "completed", "approved", "inferred", "canceled")
                .get(rnd.nextInt(6));
        String guess =
            status.equals("inferred")
                ? List.of("canceled", "vanished", "completed").get(rnd.nextInt(3))
                : null;
        states.put(vm, new VmEventState(vm, vm, "1", "ss-0", status, guess, T0, null));
      }
      Instant closed = rnd.nextInt(3) == 0 ? T0 : null;
      // NotBefore: none (started), or some of them past at the checks (T0 + 0 to 9 minutes)
      Instant notBefore = rnd.nextInt(3) == 0 ? null : T0.plusSeconds(60L * rnd.nextInt(10));
      return new EventView(
          id, "Reboot", "Platform", notBefore, 60, "d", List.of("vm-1"), T0, T0, closed, states);
    }

    static RequestView request(Random rnd, String key) {
      ApprovalRequest r =
          new ApprovalRequest(
              key,
              (rnd.nextBoolean() ? "e-" : "E-")
                  + rnd.nextInt(15), // a request may spell it either way
              List.of("vm-1"),
              "why",
              "me",
              T0,
              "api");
      if (rnd.nextInt(4) == 0) {
        r = r.refused("over the limit");
      } else if (rnd.nextBoolean()) {
        r = r.admit(List.of("web-" + rnd.nextInt(3), "WEB-" + (3 + rnd.nextInt(3))));
      }
      // Some VMs have the agent's result, some still wait for it.
      Map<String, RequestView.VmResult> results = new TreeMap<>();
      for (int i = 0; i < rnd.nextInt(3); i++) {
        if (rnd.nextInt(8) == 0) {
          results.put("vm-" + rnd.nextInt(30), null); // a bad record: a VM with no result at all
          continue;
        }
        String outcome =
            Arrays.asList(null, "accepted", "rejected", "failed", "dry-run").get(rnd.nextInt(5));
        // (an agent's refusal of an event Azure grew: what sends a rollout's VMs back to pending)
        List<String> codes = List.of("code-0", "code-1", "resources-changed");
        results.put(
            "vm-" + rnd.nextInt(30),
            new RequestView.VmResult(
                "c-" + i,
                outcome,
                outcome == null || rnd.nextBoolean() ? null : codes.get(rnd.nextInt(3)),
                outcome == null ? null : "reason " + rnd.nextInt(3),
                outcome == null ? null : T0));
      }
      return new RequestView(r, rnd.nextBoolean() ? T0 : null, results);
    }

    /** The answers a scan of the stores gives (what {@link GlobalWorld} once did every tick). */
    Scan scan() {
      return new Scan(vms.map, events.map, requests.map);
    }

    void assertSameAsAScan(Random rnd) {
      Scan s = scan();
      assertThat(world.openEvents()).containsExactlyElementsOf(s.openEvents());
      assertThat(world.releasedOpenEvents()).containsExactlyElementsOf(s.releasedOpenEvents());
      Instant at = T0.plusSeconds(30L * rnd.nextInt(20));
      assertThat(world.dueOpenEvents(at))
          .as("due at %s", at)
          .containsExactlyInAnyOrderElementsOf(
              s.events().values().stream()
                  .filter(e -> e.open() && e.notBefore() != null && !e.notBefore().isAfter(at))
                  .map(EventView::eventId)
                  .toList());
      // Once per event that has a view, however many requests sent commands for it.
      assertThat(world.requestedEvents())
          .containsExactlyInAnyOrderElementsOf(s.requestedEvents().stream().distinct().toList());
      // In a random order: the id asked last before a step is often asked first after it (a
      // world that remembered an answer across steps would give the old one).
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < 15; i++) {
        order.add(i);
      }
      java.util.Collections.shuffle(order, rnd);
      for (int i : order) {
        String e = rnd.nextBoolean() ? "e-" + i : ("E-" + i);
        assertThat(world.open(e)).as("open(%s)", e).isEqualTo(s.open(e));
        assertThat(world.eventVms(e)).as("eventVms(%s)", e).isEqualTo(s.eventVms(e));
      }
      for (int i = 0; i < 30; i++) {
        String vm = "vm-" + i;
        for (int r = 0; r < 15; r++) {
          assertThat(world.unaccepted("r-" + r, vm))
              .as("unaccepted(r-%d, %s)", r, vm)
              .isEqualTo(s.unaccepted("r-" + r, vm));
        }
      }
      for (int r = 0; r < 15; r++) {
        assertThat(world.refusedCounted("r-" + r))
            .as("refusedCounted(r-%d)", r)
            .isEqualTo(s.refusedCounted("r-" + r));
      }
      for (int i = 0; i < 30; i++) {
        String vm = "vm-" + i;
        assertThat(world.lastHeartbeat(vm).orElse(null)).isEqualTo(s.heartbeat(vm));
        assertThat(world.inGroupSize(vm))
            .as("inGroupSize(%s)", vm)
            .isEqualTo(s.vms().get(vm) != null && !s.vms().get(vm).silent());
        for (String a : List.of("zone", "scaleSet", "resourceGroup", "location")) {
          assertThat(world.attribute(vm, a)).as("%s of %s", a, vm).isEqualTo(s.attribute(vm, a));
        }
      }
      // Only some groupings asked for at each check: the others are counted from then on.
      for (List<String> g : GROUPINGS) {
        if (rnd.nextBoolean()) {
          for (Map.Entry<String, Integer> c : s.groupSizes(g).entrySet()) {
            assertThat(world.groupSize(g, c.getKey())).as("%s", c.getKey()).isEqualTo(c.getValue());
          }
          assertThat(world.groupSize(g, "zone=9")).isZero();
        }
      }
    }
  }

  /** A brute-force recomputation over the stores' contents. */
  record Scan(
      Map<String, VmView> vms, Map<String, EventView> events, Map<String, RequestView> requests) {
    List<String> openEvents() {
      return events.values().stream().filter(EventView::open).map(EventView::eventId).toList();
    }

    /** Every open event, filtered as the ledger once filtered them each tick. */
    List<String> releasedOpenEvents() {
      return events.values().stream()
          .filter(e -> e.open() && ObservedReleases.released(e.vms().values()))
          .map(EventView::eventId)
          .toList();
    }

    List<String> requestedEvents() {
      List<String> out = new ArrayList<>();
      for (RequestView r : requests.values()) {
        EventView e = events.get(r.request().eventId().toLowerCase(Locale.ROOT));
        if (r.commandsSentAt() != null && r.request().refusal() == null && e != null) {
          out.add(e.eventId());
        }
      }
      return out;
    }

    /** The agent's result as the requests store says it (a rollout once read it every tick). */
    Optional<World.Result> unaccepted(String requestId, String vmId) {
      RequestView r = requests.get(requestId);
      if (r == null
          || r.vms().get(vmId) == null
          || r.vms().get(vmId).outcome() == null
          || r.vms().get(vmId).outcome().equals("accepted")) {
        return Optional.empty();
      }
      RequestView.VmResult v = r.vms().get(vmId);
      return Optional.of(
          new World.Result(
              v.outcome(),
              (v.reasonCode() == null ? "" : v.reasonCode() + ": ") + v.reason(),
              v.reasonCode()));
    }

    /** The names a request counted, where a VM's agent refused it as resources-changed. */
    List<String> refusedCounted(String requestId) {
      RequestView r = requests.get(requestId);
      if (r == null || r.request() == null || r.request().counted() == null) {
        return List.of();
      }
      boolean refused =
          r.vms().values().stream()
              .anyMatch(
                  v ->
                      v != null
                          && "rejected".equals(v.outcome())
                          && "resources-changed".equals(v.reasonCode()));
      return refused ? r.request().counted() : List.of();
    }

    boolean open(String eventId) {
      EventView e = events.get(eventId.toLowerCase(Locale.ROOT));
      return e != null && e.open();
    }

    Map<String, VmEventState> eventVms(String eventId) {
      EventView e = events.get(eventId.toLowerCase(Locale.ROOT));
      return e == null ? Map.of() : e.vms();
    }

    Instant heartbeat(String vmId) {
      VmView v = vms.get(vmId);
      return v == null ? null : v.lastHeartbeatAt();
    }

    String attribute(String vmId, String a) {
      VmView v = vms.get(vmId);
      if (v == null) {
        return null;
      }
      return switch (a) {
        case "zone" -> v.zone();
        case "scaleSet" -> v.scaleSet();
        case "resourceGroup" -> v.resourceGroup();
        default -> v.location();
      };
    }

    int groupSize(List<String> groupBy, String group) {
      return groupSizes(groupBy).getOrDefault(group, 0);
    }

    Map<String, Integer> groupSizes(List<String> groupBy) {
      Map<String, Integer> out = new HashMap<>();
      for (VmView v : vms.values()) {
        if (!v.silent()) {
          out.merge(
              ListedVms.group(v.vmId(), a -> attribute(v.vmId(), a), groupBy), 1, Integer::sum);
        }
      }
      return out;
    }
  }

  /** A store as a global updater keeps it: safe to read while another thread writes. */
  static final class MapStore<V> implements ReadOnlyKeyValueStore<String, V> {
    final ConcurrentSkipListMap<String, V> map = new ConcurrentSkipListMap<>();

    /** Runs after each entry a whole read takes: the stores changing while they are read. */
    volatile Runnable duringRead = () -> {};

    void set(String key, V value) {
      if (value == null) {
        map.remove(key);
      } else {
        map.put(key, value);
      }
    }

    @Override
    public V get(String key) {
      return map.get(key);
    }

    @Override
    public KeyValueIterator<String, V> range(String from, String to) {
      return iterator(map.subMap(from, true, to, true).entrySet().iterator());
    }

    @Override
    public KeyValueIterator<String, V> all() {
      Iterator<Map.Entry<String, V>> it = map.entrySet().iterator();
      Runnable during = duringRead;
      return iterator(
          new Iterator<>() {
            @Override
            public boolean hasNext() {
              return it.hasNext();
            }

            @Override
            public Map.Entry<String, V> next() {
              Map.Entry<String, V> e = it.next();
              during.run();
              return e;
            }
          });
    }

    @Override
    public long approximateNumEntries() {
      return map.size();
    }

    private static <V> KeyValueIterator<String, V> iterator(Iterator<Map.Entry<String, V>> it) {
      return new KeyValueIterator<>() {
        @Override
        public void close() {}

        @Override
        public String peekNextKey() {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public KeyValue<String, V> next() {
          Map.Entry<String, V> e = it.next();
          return KeyValue.pair(e.getKey(), e.getValue());
        }
      };
    }
  }
}
