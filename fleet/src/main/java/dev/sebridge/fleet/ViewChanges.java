package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Counts changes of this instance's views; the web page's live stream waits on it. */
public final class ViewChanges implements TopologyObserver {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private long version;

  @Override
  public void applied(Instant envelopeTime) {}

  @Override
  public void approvedAfter(Duration sinceScheduled) {}

  @Override
  public void viewChanged() {
    lock.lock();
    try {
      version++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public long version() {
    lock.lock();
    try {
      return version;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the version is past {@code seen}, at most {@code timeout}; the version then. */
  public long awaitAfter(long seen, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (version <= seen) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      return version;
    } finally {
      lock.unlock();
    }
  }
}
