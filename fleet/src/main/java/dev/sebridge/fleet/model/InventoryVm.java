package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A VM or scale-set instance as Azure Resource Graph lists it: the inventory's record, keyed by its
 * lower-case vmId on {@code <prefix>-inventory}.
 *
 * @param vmId the VM's unique id (what IMDS and the agent call vmId)
 * @param resourceId its ARM id
 * @param name its name (what an event's {@code Resources} lists)
 * @param subscriptionId subscription
 * @param resourceGroup resource group
 * @param location region
 * @param zone availability zone, or null
 * @param scaleSet the scale set's name, or null
 * @param availabilitySet the availability set's name, or null
 * @param tags the VM's tags
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InventoryVm(
    String vmId,
    String resourceId,
    String name,
    String subscriptionId,
    String resourceGroup,
    String location,
    String zone,
    String scaleSet,
    String availabilitySet,
    Map<String, String> tags) {

  public InventoryVm {
    tags = tags == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(tags));
  }

  /** The key of a vmId in the inventory (vmIds are GUIDs; Azure spells them either case). */
  public static String key(String vmId) {
    return vmId.toLowerCase(Locale.ROOT);
  }

  /**
   * Whether a vmId is spelt as the inventory keys it (lower case, as IMDS gives it): only that
   * spelling of a VM can be known. Another is a different VM to the fleet (its own view, its own
   * group count), so it stays unknown: otherwise each upper-case variant of one real vmId would
   * count as one more VM of its group.
   */
  public static boolean canonical(String vmId) {
    return vmId != null && vmId.equals(key(vmId));
  }

  /**
   * The inventory's record of a vmId, read by key from {@code inventory} (null: no inventory), or
   * null when it does not list the vmId in this spelling ({@link #canonical}).
   */
  public static InventoryVm listed(String vmId, Function<String, InventoryVm> inventory) {
    return inventory != null && canonical(vmId) ? inventory.apply(vmId) : null;
  }
}
