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
   * every client of this machine, the benchmark's and the slow loris's. -1 where there is no {@code
   * /proc}.
   */
  static int establishedTo(int port) {
    String remote = String.format(Locale.ROOT, ":%04X", port);
    int n = 0;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          String[] f = line.trim().split("\\s+");
          if (f.length > 3 && f[2].endsWith(remote) && f[3].equals("01")) {
            n++;
          }
        }
      } catch (IOException e) {
        return -1;
      }
    }
    return n;
  }
}
