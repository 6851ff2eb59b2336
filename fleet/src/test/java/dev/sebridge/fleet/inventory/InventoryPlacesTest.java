package dev.sebridge.fleet.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.fleet.model.InventoryVm;
import dev.sebridge.fleet.model.VmEventState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where Azure's inventory places a VM an event lists by name only. */
class InventoryPlacesTest {
  static final String MAIN = "/subscriptions/S1/resourceGroups/Main";
  static final String OTHER = "/subscriptions/s1/resourceGroups/other";

  static InventoryPlaces.Place place(String group, String name, String zone) {
    return InventoryPlaces.Place.of(
        new InventoryVm(
            "id",
            group + "/providers/Microsoft.Compute/virtualMachines/" + name,
            name,
            "s1",
            "rg",
            "west",
            zone,
            null,
            null,
            Map.of()));
  }

  static String event(String group) {
    return group
        + "/providers/Microsoft.Compute/virtualMachineScaleSets/web/providers"
        + "/Microsoft.Maintenance/scheduledEvents/E0";
  }

  @Test
  void aNameIsPlacedOnlyWhereTheEventsResourceGroupHasExactlyOneVmOfThatName() {
    InventoryPlaces p = new InventoryPlaces();
    p.moved("vm-1", place(MAIN, "Web_1", "1"));
    p.moved("vm-2", place(OTHER, "web_1", "2"));
    p.moved("vm-3", place(OTHER, "web_3", "3"));
    p.moved("vm-4", place(OTHER, "WEB_3", "1"));
    assertThat(p.placed("web_1", event(MAIN), List.of(), id -> true)).isEqualTo("vm-1");
    assertThat(p.placed("WEB_1", event(OTHER.toUpperCase()), List.of(), id -> true))
        .isEqualTo("vm-2");
    assertThat(p.placed("web_1", null, List.of(), id -> true))
        .as("a name alone: a VM outside the inventory may bear it")
        .isNull();
    assertThat(p.placed("web_3", event(OTHER), List.of(), id -> true))
        .as("two of that name there")
        .isNull();
    assertThat(p.placed("web_9", event(MAIN), List.of(), id -> true)).isNull();
    assertThat(p.place("vm-2").attribute("zone")).isEqualTo("2");
  }

  @Test
  void withoutAnArmIdTheResourceGroupIsThatOfAKnownVmThatReportedTheEvent() {
    InventoryPlaces p = new InventoryPlaces();
    p.moved("vm-1", place(MAIN, "web_1", "1"));
    p.moved("vm-2", place(OTHER, "web_1", "2"));
    p.moved("vm-a", place(OTHER, "web_a", "2"));
    List<VmEventState> byA =
        List.of(
            new VmEventState("vm-a", "web_a", "2", null, "scheduled", null, Instant.EPOCH, null));
    assertThat(p.placed("web_1", null, byA, id -> true)).isEqualTo("vm-2");
    assertThat(p.placed("web_1", null, byA, id -> false))
        .as("a VM the fleet does not count as the inventory's tells nothing")
        .isNull();
  }

  @Test
  void aRenamedOrRemovedVmMovesItsName() {
    InventoryPlaces p = new InventoryPlaces();
    assertThat(p.moved("vm-1", place(MAIN, "web_1", "1"))).isTrue();
    assertThat(p.moved("vm-1", place(MAIN, "web_1", "2"))).as("the name stays").isFalse();
    assertThat(p.place("vm-1").zone()).isEqualTo("2");
    assertThat(p.moved("vm-1", place(MAIN, "web_2", "2"))).isTrue();
    assertThat(p.listed("web_1")).isFalse();
    assertThat(p.placed("web_2", event(MAIN), List.of(), id -> true)).isEqualTo("vm-1");
    assertThat(p.moved("vm-1", null)).isTrue();
    assertThat(p.listed("web_2")).isFalse();
    assertThat(p.place("vm-1")).isNull();
  }

  @Test
  void theScopeOfAnArmIdIsItsSubscriptionAndResourceGroup() {
    assertThat(InventoryPlaces.scope(event(MAIN)))
        .isEqualTo("/subscriptions/s1/resourcegroups/main");
    assertThat(InventoryPlaces.scope("/subscriptions/s1")).isNull();
    assertThat(InventoryPlaces.scope("subscriptions/s1/resourceGroups/x")).isNull();
    assertThat(InventoryPlaces.scope("/subscriptions//resourceGroups/x")).isNull();
    assertThat(InventoryPlaces.scope("/subscriptions/s1/providers/x/y")).isNull();
    assertThat(InventoryPlaces.scope(null)).isNull();
    assertThat(InventoryPlaces.Place.of(null)).isNull();
  }
}
