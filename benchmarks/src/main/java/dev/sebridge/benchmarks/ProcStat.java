package dev.sebridge.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** RSS, PSS and threads of any process, from /proc (CPU time: {@link ProcessCpu}). */
final class ProcStat {
  private ProcStat() {}

  static long rssKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  /**
   * Proportional set size in KiB: shared pages (the JDK's CDS archive, libjvm) split by sharers.
   */
  static long pssKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
      if (line.startsWith("Pss:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  static int threads(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("Threads:")) {
        return Integer.parseInt(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }
}
