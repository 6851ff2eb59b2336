package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Whether Azure's inventory ({@code fleet.inventory.*}, Resource Graph) has the VM an agent reports
 * as itself. Absent (null) while no inventory is configured.
 */
public enum InventoryState {
  /** The inventory has the vmId: its group attributes are Azure's, not the agent's. */
  @JsonProperty("known")
  KNOWN,
  /**
   * The inventory does not have the vmId: an invented one, a VM outside the inventory's scope, or
   * one created since the last refresh. Never counted in a group or as "back".
   */
  @JsonProperty("unknown")
  UNKNOWN
}
