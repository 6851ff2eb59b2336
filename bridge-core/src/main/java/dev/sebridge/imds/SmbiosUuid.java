package dev.sebridge.imds;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The SMBIOS system UUID, this VM's id where {@code /metadata/instance/compute} is not served
 * (Microsoft's scheduled-events mock server, images that block it).
 *
 * <p>On Azure it is the vmId, but the OS may show its first three groups in the other byte order:
 * the firmware of BIOS-booted (generation 1) VMs stores the UUID in the order SMBIOS before 2.6
 * used, which Linux prints as it is stored, so the vmId is the read value with those groups' bytes
 * reversed ({@code 544CDFD0-CB4E-4B4A-...} read, {@code D0DF4C54-4ECB-4A4B-...} vmId); UEFI-booted
 * (generation 2) VMs read as the vmId. {@link Order#AUTO} therefore swaps on Linux when the VM did
 * not boot through UEFI ({@code /sys/firmware/efi} absent), and takes Windows' reading as it is
 * ({@code Win32_ComputerSystemProduct.UUID} decodes the stored order); {@code vm.smbios-uuid-order}
 * overrides it.
 */
public final class SmbiosUuid {
  /** Where Linux shows the SMBIOS system UUID (readable by root only). */
  public static final Path LINUX_FILE = Path.of("/sys/class/dmi/id/product_uuid");

  /** Present when Linux booted through UEFI (a generation 2 VM). */
  static final Path EFI = Path.of("/sys/firmware/efi");

  private static final Pattern UUID =
      Pattern.compile(
          "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");

  /** Which byte order to take the read UUID in ({@code vm.smbios-uuid-order}). */
  public enum Order {
    /** Linux: swapped unless booted through UEFI; Windows: as read. */
    AUTO,
    /** as the OS shows it */
    AS_READ,
    /** the first three groups' bytes reversed */
    SWAPPED;

    /** {@code auto}, {@code as-read}, {@code swapped}. */
    public static Optional<Order> parse(String s) {
      for (Order o : values()) {
        if (o.name().replace('_', '-').equalsIgnoreCase(s.trim())) {
          return Optional.of(o);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * A vmId from SMBIOS.
   *
   * @param vmId the id, lower case
   * @param source {@link IdentitySources.VmIdSource#SMBIOS} or {@code SMBIOS_SWAPPED}
   */
  public record Found(String vmId, IdentitySources.VmIdSource source) {}

  /** Reads the raw UUID text (a file, a credential, a command's output), or empty. */
  @FunctionalInterface
  public interface Reader {
    Optional<String> read();
  }

  private final Reader reader;
  private final Order order;
  private final boolean swapWhenAuto;

  SmbiosUuid(Reader reader, Order order, boolean swapWhenAuto) {
    this.reader = reader;
    this.order = order;
    this.swapWhenAuto = swapWhenAuto;
  }

  /**
   * This machine's reader: on Linux {@code file} (the systemd unit copies {@link #LINUX_FILE},
   * readable by root only, to one its user may read); on Windows {@code
   * Win32_ComputerSystemProduct.UUID} through PowerShell.
   */
  public static SmbiosUuid forThisMachine(Path file, Order order) {
    boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("win");
    if (windows) {
      return new SmbiosUuid(SmbiosUuid::windows, order, false);
    }
    return new SmbiosUuid(() -> file(file), order, !Files.isDirectory(EFI));
  }

  /** A reader of {@code file}, swapping in AUTO order when {@code bios} (no UEFI boot). */
  public static SmbiosUuid ofFile(Path file, Order order, boolean bios) {
    return new SmbiosUuid(() -> file(file), order, bios);
  }

  /** The vmId SMBIOS gives, or empty when it cannot be read or is not a UUID (nil, all ones). */
  public Optional<Found> vmId() {
    // The first line that is a UUID (PowerShell may print more than asked).
    Optional<String> raw =
        reader
            .read()
            .flatMap(
                text ->
                    text.lines()
                        .map(String::trim)
                        .filter(l -> UUID.matcher(l).matches())
                        .findFirst());
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    String read = raw.get().toLowerCase(Locale.ROOT);
    if (read.equals("00000000-0000-0000-0000-000000000000")
        || read.equals("ffffffff-ffff-ffff-ffff-ffffffffffff")) {
      return Optional.empty(); // firmware that did not set one
    }
    boolean swap = order == Order.SWAPPED || (order == Order.AUTO && swapWhenAuto);
    return Optional.of(
        swap
            ? new Found(swap(read), IdentitySources.VmIdSource.SMBIOS_SWAPPED)
            : new Found(read, IdentitySources.VmIdSource.SMBIOS));
  }

  /** The UUID with its first three groups' bytes reversed (an involution). */
  public static String swap(String uuid) {
    String[] g = uuid.split("-");
    return String.join("-", reverseBytes(g[0]), reverseBytes(g[1]), reverseBytes(g[2]), g[3], g[4]);
  }

  private static String reverseBytes(String hex) {
    StringBuilder b = new StringBuilder(hex.length());
    for (int i = hex.length() - 2; i >= 0; i -= 2) {
      b.append(hex, i, i + 2);
    }
    return b.toString();
  }

  private static Optional<String> file(Path p) {
    try {
      return Optional.of(Files.readString(p, StandardCharsets.US_ASCII));
    } catch (IOException | SecurityException e) {
      return Optional.empty(); // missing, or root only (run as root, or load it as a credential)
    }
  }

  private static Optional<String> windows() {
    try {
      Process p =
          new ProcessBuilder(
                  List.of(
                      "powershell.exe",
                      "-NoProfile",
                      "-NonInteractive",
                      "-Command",
                      "$ProgressPreference='SilentlyContinue';"
                          + " (Get-CimInstance -ClassName Win32_ComputerSystemProduct).UUID"))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      p.getOutputStream().close();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.exitValue() == 0 ? Optional.of(out) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
