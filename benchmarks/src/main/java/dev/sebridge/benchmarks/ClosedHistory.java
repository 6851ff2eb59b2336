package dev.sebridge.benchmarks;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;

/**
 * {@code FleetBenchmark --closed-history N}: N one-VM events written scheduled, started and
 * completed after the first load ({@link FleetGenerator#closedHistory}), {@link #RATE} a second (a
 * day's history as it builds up, not a burst), until the service lists them all closed: the closed
 * events the views keep for {@code fleet.closed-retention}.
 */
final class ClosedHistory {
  /** The history's events a second (each three envelopes). */
  static final int RATE = 1_000;

  private ClosedHistory() {}

  /** Writes {@code events} of history and waits until {@code fleet} lists them all closed. */
  static void write(FleetGenerator gen, FleetProcess fleet, int events, FleetReport report)
      throws Exception {
    long h0 = System.nanoTime();
    AtomicInteger written = new AtomicInteger();
    // (daemon: a failure below ends the benchmark; one in the writer fails the wait at once)
    ScheduledExecutorService pace = daemon("fleet-benchmark-history");
    ScheduledFuture<?> writing =
        pace.scheduleAtFixedRate(
            () -> {
              int n = Math.min(RATE / 10, events - written.get());
              if (n > 0) {
                gen.closedHistory(written.get(), n);
                written.addAndGet(n);
              }
            },
            0,
            100,
            TimeUnit.MILLISECONDS);
    try {
      Awaitility.await("the closed history written")
          .atMost(Duration.ofMinutes(30))
          .until(
              () -> {
                if (writing.isDone()) {
                  writing.get(); // throws what stopped the writer
                }
                return written.get() == events;
              });
    } finally {
      pace.shutdownNow();
    }
    fleet.awaitClosedEvents(events, Duration.ofMinutes(15));
    report.closedHistory(events, Duration.ofNanos(System.nanoTime() - h0));
  }

  /** A scheduler of one daemon thread of this name: it does not keep the benchmark's JVM up. */
  static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
