package dev.sebridge.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The keys of the VM's identity (listed in {@link CoreKeys#all()} where they always stood): where
 * the vmId and the name come from when IMDS's compute metadata does not say, or must not.
 */
public final class VmKeys {
  private VmKeys() {}

  /** A value that would replace IMDS's with nothing (an empty environment variable). */
  private static java.util.Optional<String> notBlank(String v) {
    if (v.isBlank()) {
      return java.util.Optional.of("must not be blank (unset it to read it from IMDS)");
    }
    return v.strip().equals(v)
        ? java.util.Optional.empty()
        : java.util.Optional.of(
            "must not begin or end with white space (an env file's line ending?)");
  }

  public static final ConfigKey<String> VM_ID =
      ConfigKey.builder("vm.id", ConfigType.STRING)
          .doc(
              "Overrides the vmId read from /metadata/instance/compute (partition key and envelope"
                  + " source). Leave unset on Azure; set, it must not be blank or begin or end with white space.")
          .validator(VmKeys::notBlank)
          .build();

  public static final ConfigKey<String> VM_NAME =
      ConfigKey.builder("vm.name", ConfigType.STRING)
          .doc(
              "Overrides the VM name read from IMDS, which is matched against an event's Resources"
                  + " (affectsThisVm). Leave unset on Azure; set, it must not be blank or begin or end with white space.")
          .validator(VmKeys::notBlank)
          .build();

  public static final ConfigKey<Path> VM_SMBIOS_UUID_FILE =
      ConfigKey.builder("vm.smbios-uuid-file", ConfigType.PATH)
          .defaultValue(dev.sebridge.imds.SmbiosUuid.LINUX_FILE)
          .doc(
              "Linux: where the SMBIOS system UUID is read when /metadata/instance/compute is not"
                  + " served (5 attempts after a 404, 10 after other failures): it is then the vmId"
                  + " (vm.smbios-uuid-order) and the host name the VM name, unless vm.id and"
                  + " vm.name say otherwise. /sys/class/dmi/id/product_uuid is readable by root"
                  + " only: the systemd unit copies it to /run/sebridge/smbios-uuid and points"
                  + " this key there. Windows reads Win32_ComputerSystemProduct.UUID.")
          .build();

  public static final ConfigKey<String> VM_SMBIOS_UUID_ORDER =
      ConfigKey.builder("vm.smbios-uuid-order", ConfigType.STRING)
          .defaultValue("auto")
          .doc(
              "The byte order of the SMBIOS UUID's first three groups, to give Azure's vmId:"
                  + " as-read, swapped, or auto (Linux: swapped on a VM that did not boot through"
                  + " UEFI, i.e. generation 1, as read on generation 2; Windows: as read). The"
                  + " heartbeat says which was used (data.vm.sources).")
          .validator(
              v ->
                  dev.sebridge.imds.SmbiosUuid.Order.parse(v).isPresent()
                      ? Optional.empty()
                      : Optional.of("must be auto, as-read or swapped"))
          .build();
}
