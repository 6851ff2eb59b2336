package dev.sebridge.imds;

import java.util.Locale;

/**
 * Where the agent's identity came from, reported in every heartbeat ({@code data.vm.sources}).
 *
 * @param vmId where the vmId came from
 * @param name where the VM name came from
 */
public record IdentitySources(VmIdSource vmId, NameSource name) {
  /** Both from {@code /metadata/instance/compute}. */
  public static final IdentitySources IMDS = new IdentitySources(VmIdSource.IMDS, NameSource.IMDS);

  /** As heartbeats carry it ({@code data.vm.sources}): {@code {"vmId": ..., "name": ...}}. */
  public void writeTo(com.fasterxml.jackson.databind.node.ObjectNode node) {
    node.put("vmId", vmId.wire());
    node.put("name", name.wire());
  }

  /** Where a vmId came from. */
  public enum VmIdSource {
    /** {@code /metadata/instance/compute} */
    IMDS,
    /** {@code vm.id} */
    CONFIG,
    /** the SMBIOS system UUID as the OS reads it */
    SMBIOS,
    /** the SMBIOS system UUID with its first three groups' byte order swapped */
    SMBIOS_SWAPPED;

    /**
     * As written in heartbeats: {@code imds}, {@code config}, {@code smbios}, {@code
     * smbios-swapped}.
     */
    public String wire() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** Where a VM name came from. */
  public enum NameSource {
    /** {@code /metadata/instance/compute} */
    IMDS,
    /** {@code vm.name} */
    CONFIG,
    /** the OS's host name */
    HOSTNAME;

    /** As written in heartbeats: {@code imds}, {@code config}, {@code hostname}. */
    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
