package dev.sebridge.envelope;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The agent's version and host name, carried in every envelope's {@code data.agent}. */
public record AgentInfo(String version, String hostName) {

  /** The version from the jar manifest ("dev" when run from classes) and the local host name. */
  public static AgentInfo current() {
    String v = AgentInfo.class.getPackage().getImplementationVersion();
    return new AgentInfo(v == null ? "dev" : v, localHostName());
  }

  public static String localHostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }
}
