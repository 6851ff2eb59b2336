package dev.sebridge.fleet.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

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
    tags = tags == null ? Map.of() : new TreeMap<>(tags);
  }

  /** The key of a vmId in the inventory (vmIds are GUIDs; Azure spells them either case). */
  public static String key(String vmId) {
    return vmId.toLowerCase(Locale.ROOT);
  }
}
