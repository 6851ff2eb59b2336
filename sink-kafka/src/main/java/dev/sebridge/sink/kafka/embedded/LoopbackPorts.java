package dev.sebridge.sink.kafka.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** Loopback ports for a server that must know its port before it binds (brokers, test agents). */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /**
   * A free loopback port below the kernel's ephemeral range. A port the kernel handed out for a
   * moment (bind to 0, close) can be given again to any outgoing connection on the machine before
   * the broker binds it, and again during an outage between {@link #stop()} and {@link #start()}:
   * CI saw "Socket server failed to bind ... Address already in use" that way. Below the range only
   * another listener choosing the same port could take it.
   */
  public static int free() {
    int low = ephemeralLow();
    int from = Math.min(10_000, low / 2);
    java.util.concurrent.ThreadLocalRandom random =
        java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 100 && low - from > 100; attempt++) {
      int port = random.nextInt(from, low);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
        return port;
      } catch (IOException taken) {
        // in use: try another
      }
    }
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first port of the kernel's ephemeral range (Linux; 32768, the usual value, elsewhere). */
  static int ephemeralLow() {
    try {
      // Line by line: on this project's machines (a sandboxed kernel) Files.readString and
      // readAllBytes of a /proc file read "3" (its size is reported as 0), which made every port
      // an ephemeral one again (CI of 2026-11-26: "Address already in use").
      String range =
          Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
