package dev.sebridge.imds;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * Who this VM is, from {@code /metadata/instance/compute} (or configuration overrides).
 *
 * @param vmId the VM's unique id: partition key of everything the agent publishes
 * @param name the VM name, as listed in an event's Resources
 * @param sources where the vmId and the name came from, or null when not said
 */
public record VmIdentity(
    String vmId,
    String name,
    String resourceId,
    String subscriptionId,
    String resourceGroupName,
    String location,
    String zone,
    String vmScaleSetName,
    String osType,
    IdentitySources sources) {

  public VmIdentity {
    Objects.requireNonNull(vmId, "vmId");
    Objects.requireNonNull(name, "name");
  }

  /** An identity whose sources are not said. */
  public VmIdentity(
      String vmId,
      String name,
      String resourceId,
      String subscriptionId,
      String resourceGroupName,
      String location,
      String zone,
      String vmScaleSetName,
      String osType) {
    this(
        vmId,
        name,
        resourceId,
        subscriptionId,
        resourceGroupName,
        location,
        zone,
        vmScaleSetName,
        osType,
        null);
  }

  public static VmIdentity of(String vmId, String name) {
    return new VmIdentity(vmId, name, null, null, null, null, null, null, null);
  }

  /** The same identity, saying where it came from. */
  public VmIdentity withSources(IdentitySources s) {
    return new VmIdentity(
        vmId,
        name,
        resourceId,
        subscriptionId,
        resourceGroupName,
        location,
        zone,
        vmScaleSetName,
        osType,
        s);
  }

  /** The CloudEvents source: the ARM resource id, or {@code urn:sebridge:vm:<vmId>}. */
  public String source() {
    return resourceId != null && !resourceId.isBlank() ? resourceId : "urn:sebridge:vm:" + vmId;
  }

  static VmIdentity fromCompute(JsonNode c) throws MalformedDocumentException {
    if (c == null || !c.isObject()) {
      throw new MalformedDocumentException("compute metadata is not a JSON object");
    }
    String vmId = text(c, "vmId");
    String name = text(c, "name");
    if (vmId == null || name == null) {
      throw new MalformedDocumentException("compute metadata has no vmId or name");
    }
    return new VmIdentity(
        vmId,
        name,
        text(c, "resourceId"),
        text(c, "subscriptionId"),
        text(c, "resourceGroupName"),
        text(c, "location"),
        text(c, "zone"),
        text(c, "vmScaleSetName"),
        text(c, "osType"),
        IdentitySources.IMDS);
  }

  private static String text(JsonNode c, String f) {
    JsonNode n = c.get(f);
    return n == null || n.isNull() || n.asText().isBlank() ? null : n.asText();
  }
}
