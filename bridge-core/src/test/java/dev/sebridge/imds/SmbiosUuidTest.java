package dev.sebridge.imds;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SMBIOS UUID as a vmId, in both byte orders: Azure's vmId {@code D0DF4C54-4ECB-4A4B-...} is
 * read as {@code 544CDFD0-CB4E-4B4A-...} on a generation 1 (BIOS) Linux VM, as itself on a
 * generation 2 (UEFI) one.
 */
class SmbiosUuidTest {
  static final String VM_ID = "d0df4c54-4ecb-4a4b-9954-5bdf3ed5c3b8";
  static final String READ_ON_GEN1 = "544CDFD0-CB4E-4B4A-9954-5BDF3ED5C3B8";

  @TempDir Path dir;

  @Test
  void swappingReversesTheBytesOfTheFirstThreeGroupsOnly() {
    assertThat(SmbiosUuid.swap(READ_ON_GEN1.toLowerCase())).isEqualTo(VM_ID);
    assertThat(SmbiosUuid.swap(SmbiosUuid.swap(VM_ID))).isEqualTo(VM_ID);
  }

  @Test
  void autoSwapsOnABiosBootedVmAndTakesAUefiOneAsRead() throws Exception {
    Path gen1 = write("product_uuid_gen1", READ_ON_GEN1 + "\n");
    assertThat(SmbiosUuid.ofFile(gen1, SmbiosUuid.Order.AUTO, true).vmId())
        .contains(new SmbiosUuid.Found(VM_ID, IdentitySources.VmIdSource.SMBIOS_SWAPPED));

    Path gen2 = write("product_uuid_gen2", VM_ID.toUpperCase() + "\n");
    assertThat(SmbiosUuid.ofFile(gen2, SmbiosUuid.Order.AUTO, false).vmId())
        .contains(new SmbiosUuid.Found(VM_ID, IdentitySources.VmIdSource.SMBIOS));
  }

  @Test
  void anExplicitOrderWinsOverTheBootKind() throws Exception {
    Path f = write("product_uuid", READ_ON_GEN1);
    assertThat(SmbiosUuid.ofFile(f, SmbiosUuid.Order.AS_READ, true).vmId())
        .contains(
            new SmbiosUuid.Found(READ_ON_GEN1.toLowerCase(), IdentitySources.VmIdSource.SMBIOS));
    assertThat(SmbiosUuid.ofFile(f, SmbiosUuid.Order.SWAPPED, false).vmId())
        .contains(new SmbiosUuid.Found(VM_ID, IdentitySources.VmIdSource.SMBIOS_SWAPPED));
  }

  @Test
  void nothingUsableIsNoVmId() throws Exception {
    assertThat(SmbiosUuid.ofFile(dir.resolve("missing"), SmbiosUuid.Order.AUTO, true).vmId())
        .isEmpty();
    for (String bad :
        new String[] {
          "",
          "Not Settable",
          "00000000-0000-0000-0000-000000000000",
          "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
          "d0df4c54-4ecb-4a4b-9954"
        }) {
      Path f = write("bad", bad);
      assertThat(SmbiosUuid.ofFile(f, SmbiosUuid.Order.AUTO, false).vmId()).as(bad).isEmpty();
    }
  }

  /** Windows' reading: PowerShell may print more than the UUID; the UUID line is taken as read. */
  @Test
  void theUuidLineIsFoundAmongOtherOutput() {
    SmbiosUuid windows =
        new SmbiosUuid(
            () -> java.util.Optional.of("#< CLIXML\r\n" + VM_ID.toUpperCase() + "\r\n\r\n"),
            SmbiosUuid.Order.AUTO,
            false);
    assertThat(windows.vmId())
        .contains(new SmbiosUuid.Found(VM_ID, IdentitySources.VmIdSource.SMBIOS));
  }

  @Test
  void theOrderIsParsedAsConfigurationWritesIt() {
    assertThat(SmbiosUuid.Order.parse("auto")).contains(SmbiosUuid.Order.AUTO);
    assertThat(SmbiosUuid.Order.parse("as-read")).contains(SmbiosUuid.Order.AS_READ);
    assertThat(SmbiosUuid.Order.parse(" Swapped ")).contains(SmbiosUuid.Order.SWAPPED);
    assertThat(SmbiosUuid.Order.parse("big-endian")).isEmpty();
  }

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }
}
