package dev.sebridge.concurrent;

import java.time.Duration;

/** A moment on the monotonic clock; each step of a bounded wait gets what is left of it. */
public record Deadline(long nanoTime) {
  /** {@code timeout} from now. */
  public static Deadline after(Duration timeout) {
    return new Deadline(System.nanoTime() + timeout.toNanos());
  }

  /** What is left of it, zero once it passed. */
  public Duration remaining() {
    return Duration.ofNanos(Math.max(0, nanoTime - System.nanoTime()));
  }
}
