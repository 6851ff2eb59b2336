package dev.sebridge.envelope;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** The agent's version and host name, carried in every envelope's {@code data.agent}. */
public record AgentInfo(String version, String hostName) {
  /** Linux's own host name, which needs no name service. */
  static final Path KERNEL_HOST_NAME = Path.of("/proc/sys/kernel/hostname");

  /** The version from the jar manifest ("dev" when run from classes) and the local host name. */
  public static AgentInfo current() {
    String v = AgentInfo.class.getPackage().getImplementationVersion();
    return new AgentInfo(v == null ? "dev" : v, localHostName());
  }

  /**
   * The local host name: {@code HOSTNAME}, else the kernel's (Linux: the name the system was given,
   * which needs no name service), else as Java resolves it, else {@code COMPUTERNAME} (Windows). A
   * host whose name the name service does not resolve (custom DNS, no {@code /etc/hosts} entry;
   * systemd sets no {@code HOSTNAME}) still has one, and none waits for an unreachable DNS server
   * first. "unknown" when none says.
   */
  public static String localHostName() {
    return localHostName(
        System.getenv(), () -> InetAddress.getLocalHost().getHostName(), KERNEL_HOST_NAME);
  }

  static String localHostName(Map<String, String> env, Callable<String> resolved, Path kernel) {
    String fromEnv = env.get("HOSTNAME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv.trim();
    }
    try {
      String name = Files.readString(kernel, StandardCharsets.UTF_8).trim();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException | SecurityException e) {
      // not Linux, or not readable
    }
    try {
      String name = resolved.call();
      if (name != null && !name.isBlank()) {
        return name;
      }
    } catch (Exception e) {
      // the name service does not know it (UnknownHostException)
    }
    String windows = env.get("COMPUTERNAME");
    return windows != null && !windows.isBlank() ? windows.trim() : "unknown";
  }
}
