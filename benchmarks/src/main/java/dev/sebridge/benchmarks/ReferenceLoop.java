package dev.sebridge.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reference loop's document changes: unix time (seconds) of each line, by EventId:status set.
 */
final class ReferenceLoop implements AutoCloseable {
  final Process process;
  final List<double[]> lines = new ArrayList<>(); // [unixSeconds, incarnation]
  final Thread reader;

  ReferenceLoop(Path script, String endpoint) throws IOException {
    process =
        new ProcessBuilder("/usr/bin/python3", script.toString(), endpoint)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  String[] f = line.split(" ");
                  synchronized (lines) {
                    lines.add(new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1])});
                  }
                }
              } catch (IOException ignored) {
                // process ended
              }
            },
            "reference-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Unix time at which the loop first printed a document with this incarnation, or NaN. */
  double awaitIncarnation(long incarnation, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      synchronized (lines) {
        for (double[] l : lines) {
          if ((long) l[1] >= incarnation) {
            return l[0];
          }
        }
      }
      Thread.sleep(2);
    }
    return Double.NaN;
  }

  long pid() {
    return process.pid();
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    process.waitFor(5, TimeUnit.SECONDS);
  }
}
