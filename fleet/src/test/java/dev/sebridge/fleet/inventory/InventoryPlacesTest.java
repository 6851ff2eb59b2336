package dev.sebridge.fleet.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where Azure's inventory places a VM an event lists by name only: the one VM of that name in the
 * event's resource group and scale set, availability set or VM.
 */
class InventoryPlacesTest {
  static final String MAIN = "/subscriptions/S1/resourceGroups/Main";
  static final String OTHER = "/subscriptions/s1/resourceGroups/other";

  static InventoryPlaces.Place place(String group, String name, String zone, String scaleSet) {
    return InventoryPlaces.Place.of(
        new InventoryVm(
            "id",
            group + "/providers/Microsoft.Compute/virtualMachines/" + name,
            name,
            "s1",
            "rg",
            "west",
            zone,
            scaleSet,
            null,
            Map.of()));
  }

  /** A scheduled event of scale set {@code web} in this resource group. */
  static String event(String group) {
    return group
        + "/providers/Microsoft.Compute/virtualMachineScaleSets/WEB/providers"
        + "/Microsoft.Maintenance/scheduledEvents/E0";
  }

  static VmEventState report(String vmId) {
    return new VmEventState(vmId, vmId, "1", null, "scheduled", null, Instant.EPOCH, null);
  }

  @Test
  void aNameIsPlacedOnlyWhereTheEventsScaleSetHasExactlyOneVmOfThatName() {
    InventoryPlaces p = new InventoryPlaces();
    p.moved("vm-1", place(MAIN, "Web_1", "1", "web"));
    p.moved("vm-2", place(OTHER, "web_1", "2", "web"));
    p.moved("vm-3", place(OTHER, "web_3", "3", "web"));
    p.moved("vm-4", place(OTHER, "WEB_3", "1", "web"));
    p.moved("vm-5", place(MAIN, "web_5", "1", "api"));
    assertThat(p.placed("web_1", event(MAIN), List.of(), List.of(), id -> true)).isEqualTo("vm-1");
    assertThat(p.placed("WEB_1", event(OTHER.toUpperCase()), List.of(), List.of(), id -> true))
        .isEqualTo("vm-2");
    assertThat(p.placed("web_1", null, List.of(), List.of(), id -> true))
        .as("a name alone: a VM outside the inventory may bear it")
        .isNull();
    assertThat(p.placed("web_3", event(OTHER), List.of(), List.of(), id -> true))
        .as("two of that name there")
        .isNull();
    assertThat(p.placed("web_5", event(MAIN), List.of(), List.of(), id -> true))
        .as("in the resource group, but of another scale set")
        .isNull();
    assertThat(p.placed("web_9", event(MAIN), List.of(), List.of(), id -> true)).isNull();
    assertThat(p.place("vm-2").attribute("zone")).isEqualTo("2");
  }

  /**
   * An event whose ARM id is one VM's (as Microsoft's pages show them) may list others: they are of
   * that VM's availability set (or scale set), or of its resource group when it has none; a uniform
   * instance bearing the VM's name is never that VM.
   */
  @Test
  void anEventOfOneVmsArmIdPlacesTheOthersItListsInThatVmsSet() {
    InventoryPlaces p = new InventoryPlaces();
    p.moved("vm-1", placeInSet(MAIN, "db-1", "as1"));
    p.moved("vm-2", placeInSet(MAIN, "db-2", "as1"));
    p.moved("vm-3", placeInSet(MAIN, "db-3", "as2"));
    p.moved("vm-4", place(MAIN, "web-1", "1", null));
    p.moved("vm-5", place(MAIN, "web-2", "2", null));
    p.moved(
        "vm-6",
        InventoryPlaces.Place.of(
            new InventoryVm(
                "vm-6",
                MAIN + "/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/0",
                "db-9",
                "s1",
                "rg",
                "west",
                "3",
                "ss",
                null,
                Map.of())));
    assertThat(p.placed("db-1", ofVm("DB-1"), List.of(), List.of(), id -> true)).isEqualTo("vm-1");
    assertThat(p.placed("db-2", ofVm("db-1"), List.of(), List.of(), id -> true)).isEqualTo("vm-2");
    assertThat(p.placed("db-3", ofVm("db-1"), List.of(), List.of(), id -> true))
        .as("another availability set")
        .isNull();
    assertThat(p.placed("web-2", ofVm("web-1"), List.of(), List.of(), id -> true))
        .as("a VM in no set: its resource group")
        .isEqualTo("vm-5");
    assertThat(p.placed("db-9", ofVm("db-9"), List.of(), List.of(), id -> true))
        .as("a uniform instance is not the VM the ARM id names")
        .isNull();
    assertThat(p.placed("db-9", ofVm("web-1"), List.of(), List.of(), id -> true))
        .as("nor one of the VMs an event of a VM's ARM id lists")
        .isNull();
  }

  static String ofVm(String name) {
    return MAIN
        + "/providers/Microsoft.Compute/virtualMachines/"
        + name
        + "/providers/Microsoft.Maintenance/scheduledevents/E0";
  }

  static InventoryPlaces.Place placeInSet(String group, String name, String availabilitySet) {
    return InventoryPlaces.Place.of(
        new InventoryVm(
            "id",
            group + "/providers/Microsoft.Compute/virtualMachines/" + name,
            name,
            "s1",
            "rg",
            "west",
            "1",
            "",
            availabilitySet,
            Map.of()));
  }

  @Test
  void withoutAnArmIdTheScopeIsWhatTheKnownVmsThatReportedTheEventShare() {
    InventoryPlaces p = new InventoryPlaces();
    p.moved("vm-1", place(MAIN, "web_1", "1", "web"));
    p.moved("vm-2", place(OTHER, "web_1", "2", "web"));
    p.moved("vm-a", place(OTHER, "web_a", "2", "web"));
    p.moved("vm-b", place(OTHER, "web_b", "2", "web"));
    p.moved("vm-c", place(MAIN, "web_c", "2", "web"));
    p.moved("vm-d", place(OTHER, "web_d", "2", "api"));
    p.moved("vm-e", place(OTHER, "web_1", "2", "api"));
    assertThat(p.placed("web_1", null, NAMES, List.of(report("vm-a"), report("vm-b")), id -> true))
        .isEqualTo("vm-2");
    assertThat(p.placed("web_1", null, NAMES, List.of(report("vm-a")), id -> false))
        .as("a VM the fleet does not count as the inventory's tells nothing")
        .isNull();
    assertThat(p.placed("web_1", null, NAMES, List.of(report("vm-a"), report("vm-c")), id -> true))
        .as("reporters in two resource groups")
        .isNull();
    assertThat(p.placed("web_1", null, NAMES, List.of(report("vm-a"), report("vm-d")), id -> true))
        .as("two scale sets: the resource group only, where two VMs bear the name")
        .isNull();
    assertThat(p.placed("web_1", null, List.of("web_1"), List.of(report("vm-a")), id -> true))
        .as("a part of a VM the event does not list tells nothing")
        .isNull();
  }

  static final List<String> NAMES = List.of("web_1", "web_a", "web_b", "web_c", "web_d");

  @Test
  void aRenamedOrRemovedVmMovesItsName() {
    InventoryPlaces p = new InventoryPlaces();
    assertThat(p.moved("vm-1", place(MAIN, "web_1", "1", "web"))).isTrue();
    assertThat(p.moved("vm-1", place(MAIN, "web_1", "2", "web"))).as("the name stays").isFalse();
    assertThat(p.place("vm-1").zone()).isEqualTo("2");
    assertThat(p.moved("vm-1", place(MAIN, "web_2", "2", "web"))).isTrue();
    assertThat(p.listed("web_1")).isFalse();
    assertThat(p.placed("web_2", event(MAIN), List.of(), List.of(), id -> true)).isEqualTo("vm-1");
    assertThat(p.moved("vm-1", null)).isTrue();
    assertThat(p.listed("web_2")).isFalse();
    assertThat(p.place("vm-1")).isNull();
  }

  @Test
  void theScopeOfAnArmIdIsItsResourceGroupAndWhatTheEventIsOf() {
    assertThat(InventoryPlaces.Scope.of(event(MAIN)))
        .isEqualTo(
            new InventoryPlaces.Scope(
                "/subscriptions/s1/resourcegroups/main", InventoryPlaces.Kind.SCALE_SET, "WEB"));
    assertThat(InventoryPlaces.Scope.of(MAIN + "/providers/Microsoft.Storage/accounts/x").kind())
        .isEqualTo(InventoryPlaces.Kind.GROUP);
    assertThat(InventoryPlaces.Scope.of("/subscriptions/s1")).isNull();
    assertThat(InventoryPlaces.Scope.of("subscriptions/s1/resourceGroups/x")).isNull();
    assertThat(InventoryPlaces.Scope.of("/subscriptions//resourceGroups/x")).isNull();
    assertThat(InventoryPlaces.Scope.of("/subscriptions/s1/providers/x/y")).isNull();
    assertThat(InventoryPlaces.Scope.of(null)).isNull();
    assertThat(InventoryPlaces.Place.of(null)).isNull();
  }
}
