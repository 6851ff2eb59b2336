package dev.sebridge.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** RSS and CPU time of any process, from /proc. */
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

  static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
