package dev.sebridge.fleet.streams;

/** Where a VM's group and its membership of the fleet come from. */
public enum Membership {
  /** What each VM's agent says of itself (no inventory configured). */
  AGENTS,
  /**
   * Azure's inventory ({@code <prefix>-inventory}, {@code fleet.inventory.*}): a vmId it does not
   * list is unknown, counted in no group and never "back"; a VM's group attributes are Azure's.
   */
  INVENTORY
}
