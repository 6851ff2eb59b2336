package dev.sebridge.benchmarks;

import java.io.PrintStream;
import java.time.Duration;

/**
 * What a long benchmark run prints as it goes: each phase as it starts, and a progress line at
 * every tenth of a phase's work, with the time since the run started (on stderr: stdout carries the
 * results).
 */
final class Progress {
  private final PrintStream out;
  private final long startedAt = System.nanoTime();
  private final int phases;
  private int phase;

  Progress(PrintStream out, int phases) {
    this.out = out;
    this.phases = phases;
  }

  /** A phase begins. */
  synchronized void phase(String name) {
    phase++;
    out.printf("[%s] phase %d/%d: %s%n", elapsed(), phase, phases, name);
    out.flush();
  }

  /** {@code done} of {@code total} units of the current phase; printed at every tenth. */
  synchronized void progress(String what, long done, long total) {
    if (total <= 0) {
      return;
    }
    long step = Math.max(1, total / 10);
    if (done == total || done % step == 0) {
      out.printf("[%s]   %s: %d/%d%n", elapsed(), what, done, total);
      out.flush();
    }
  }

  private String elapsed() {
    Duration d = Duration.ofNanos(System.nanoTime() - startedAt);
    return String.format("%02d:%02d", d.toMinutes(), d.toSecondsPart());
  }
}
