package dev.sebridge.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** What a failed request failed with, and the connections the benchmark holds to the server. */
final class Failures {
  private Failures() {}

  /**
   * The innermost cause's class and the start of its message (a closed connection, a refused one, a
   * timeout tell each other apart by it), e.g. {@code IOException: HTTP/1.1 header parser received
   * no bytes}.
   */
  static String cause(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : ": " + root.getMessage();
    if (message.length() > 80) {
      message = message.substring(0, 80) + "…";
    }
    return root.getClass().getSimpleName() + message;
  }

  /**
   * Connections established to {@code port} on this host, counted from their client's end (the
   * kernel's {@code /proc/net/tcp} and {@code tcp6}: a remote port of {@code port} in state 01):
   * every client of this machine, the benchmark's and the slow loris's. A lower bound of what the
   * server counts against the address: a connection its client closed and the server did not yet is
   * no longer established at the client's end. -1 where neither table can be read.
   */
  static int establishedTo(int port) {
    String remote = String.format(Locale.ROOT, ":%04X", port);
    int n = 0;
    boolean read = false;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        continue; // (no IPv6: no tcp6)
      }
      read = true;
      for (String line : lines) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && f[2].endsWith(remote) && f[3].equals("01")) {
          n++;
        }
      }
    }
    return read ? n : -1;
  }
}
