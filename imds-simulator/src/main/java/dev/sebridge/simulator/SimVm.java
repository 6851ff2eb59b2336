package dev.sebridge.simulator;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A virtual machine served by the simulator: the identity answered on {@code
 * /metadata/instance/compute}.
 */
public record SimVm(
    String name,
    String vmId,
    String subscriptionId,
    String resourceGroupName,
    String location,
    String zone,
    String vmScaleSetName,
    String osType) {

  public SimVm {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(vmId, "vmId");
    subscriptionId =
        subscriptionId == null ? "00000000-0000-0000-0000-000000000000" : subscriptionId;
    resourceGroupName = resourceGroupName == null ? "sim-rg" : resourceGroupName;
    location = location == null ? "westeurope" : location;
    zone = zone == null ? "" : zone;
    vmScaleSetName = vmScaleSetName == null ? "" : vmScaleSetName;
    osType = osType == null ? "Linux" : osType;
  }

  /** A VM with defaults for everything but its name and id. */
  public static SimVm of(String name, String vmId) {
    return new SimVm(name, vmId, null, null, null, null, null, null);
  }

  public String resourceId() {
    return "/subscriptions/"
        + subscriptionId
        + "/resourceGroups/"
        + resourceGroupName
        + "/providers/Microsoft.Compute/virtualMachines/"
        + name;
  }

  Map<String, Object> computeDocument() {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("azEnvironment", "AzurePublicCloud");
    doc.put("location", location);
    doc.put("name", name);
    doc.put("osType", osType);
    doc.put("resourceGroupName", resourceGroupName);
    doc.put("resourceId", resourceId());
    doc.put("subscriptionId", subscriptionId);
    doc.put("vmId", vmId);
    doc.put("vmScaleSetName", vmScaleSetName);
    doc.put("vmSize", "Standard_D2s_v5");
    doc.put("zone", zone);
    return doc;
  }
}
