package dev.sebridge.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A process's CPU time over a window, from the scheduler's run time of each of its threads ({@code
 * /proc/PID/task/TID/schedstat}, nanoseconds). utime+stime count clock ticks charged to whichever
 * thread runs when the tick fires: for a process that runs about 2 ms a second, a 5-minute window
 * is some 60 ticks, and the count is off by several of them either way. Sample it every second: a
 * thread that ends within the window loses at most its last second.
 */
final class ProcessCpu {
  private final Path tasks;

  /** Per thread: {run time at the window's start (0 if born in it), last run time seen}. */
  private final Map<String, long[]> threads = new HashMap<>();

  private ProcessCpu(long pid) {
    this.tasks = Path.of("/proc", Long.toString(pid), "task");
  }

  /** Starts the window now. */
  static ProcessCpu start(long pid) throws IOException {
    ProcessCpu cpu = new ProcessCpu(pid);
    cpu.read(true);
    return cpu;
  }

  /** Reads every thread's run time; call it every second or so. */
  void sample() throws IOException {
    read(false);
  }

  /** CPU time in the window, as of the last sample, in nanoseconds. */
  long nanos() {
    long sum = 0;
    for (long[] t : threads.values()) {
      sum += t[1] - t[0];
    }
    return sum;
  }

  private void read(boolean baseline) throws IOException {
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
      for (Path task : dir) {
        long runNanos;
        try {
          String schedstat = Files.readString(task.resolve("schedstat"));
          runNanos = Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
        } catch (NoSuchFileException gone) {
          continue; // the thread ended between the listing and the read
        }
        long start = baseline ? runNanos : 0;
        threads.computeIfAbsent(task.getFileName().toString(), k -> new long[] {start, 0})[1] =
            runNanos;
      }
    }
  }
}
