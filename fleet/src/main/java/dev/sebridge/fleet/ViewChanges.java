package dev.sebridge.fleet;

import dev.sebridge.fleet.streams.TopologyObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the changes of this instance's views, store by store; the web page's live stream reads the
 * counts to say which parts of the page changed. It also keeps how far each view's topic has been
 * applied ({@link ViewMark}): what a change told to a page was, in terms any instance can compare,
 * so that the instance a page then asks for the section answers with views at least as new.
 *
 * <p>Two positions per partition. <em>Started</em> is set as a record is applied, before the store
 * holds it or anything is told of it (its change counted, the tallies and indexes that the page
 * reads told); <em>done</em> once all of that is over. A mark is taken from the started positions
 * after reading the counts, so it covers every change counted; an instance has applied a mark when
 * its done positions reach it, so everything a section reads of those records is in place, its
 * counts included.
 */
public final class ViewChanges implements TopologyObserver {
  /**
   * Not a store: the silent agents' list, told by {@link ViewTallies#onSilentChange} (an agent fell
   * silent or was heard again), where the VMs' view changes at every heartbeat.
   */
  public static final String SILENT_AGENTS = "silent-agents";

  private final Map<String, AtomicLong> versions = new ConcurrentHashMap<>();
  private final Map<String, Map<Integer, AtomicLong>> started = new ConcurrentHashMap<>();
  private final Map<String, Map<Integer, AtomicLong>> done = new ConcurrentHashMap<>();
  private final java.util.Set<String> held = ConcurrentHashMap.newKeySet();

  /**
   * The most requests that wait in {@link #awaitApplied} at once; more are answered "not applied"
   * at once. A page's requests share a bounded pool, and an instance that is behind would otherwise
   * fill it with waits.
   */
  public static final int MAX_WAITING = 8;

  /** Requests waiting in {@link #awaitApplied}: the global thread wakes them only if any. */
  private final java.util.concurrent.atomic.AtomicInteger waiting =
      new java.util.concurrent.atomic.AtomicInteger();

  /** Records done so far: a waiter sleeps only while it is what it read before its check. */
  private final AtomicLong doneCount = new AtomicLong();

  private final Object applied = new Object();

  @Override
  public void applied(Instant envelopeTime) {}

  @Override
  public void approvedAfter(Duration sinceScheduled) {}

  @Override
  public void viewChanged(String store) {
    versions.computeIfAbsent(store, s -> new AtomicLong()).incrementAndGet();
  }

  /**
   * A deletion counts as a change (a view's writes are told through {@link #viewChanged}, its
   * deletions only here): an inventory entry deleted makes its VM unknown on the page, and
   * retention's deletions take rows off it.
   */
  @Override
  public void keyChanged(String store, String key, Object value) {
    if (value == null) {
      viewChanged(store);
    }
  }

  @Override
  public void viewHeld(String store) {
    held.add(store);
  }

  @Override
  public void viewRecordStarted(String store, int partition, long offset) {
    position(started, store, partition).set(offset);
  }

  @Override
  public void viewRecordDone(String store, int partition, long offset) {
    position(done, store, partition).set(offset);
    doneCount.incrementAndGet();
    if (waiting.get() > 0) {
      synchronized (applied) {
        applied.notifyAll(); // held only to wake: the waiters check their marks outside it
      }
    }
  }

  private static AtomicLong position(
      Map<String, Map<Integer, AtomicLong>> positions, String store, int partition) {
    return positions
        .computeIfAbsent(store, s -> new ConcurrentHashMap<>())
        .computeIfAbsent(partition, p -> new AtomicLong(-1));
  }

  /**
   * How far these stores' topics had been applied: every change counted by {@link #version} before
   * this call is covered. Stores that are not topics ({@link #SILENT_AGENTS}) are left out.
   */
  public ViewMark mark(java.util.Collection<String> stores) {
    Map<String, Map<Integer, Long>> m = new java.util.TreeMap<>();
    for (String store : stores) {
      Map<Integer, AtomicLong> positions = started.get(store);
      if (positions == null) {
        continue;
      }
      Map<Integer, Long> offsets = new java.util.TreeMap<>();
      positions.forEach((partition, offset) -> offsets.put(partition, offset.get()));
      m.put(store, offsets);
    }
    return new ViewMark(m);
  }

  /**
   * Whether this instance has applied everything {@code mark} covers, and told all of it. A store
   * this instance does not hold ({@link #viewHeld}) is left out: the inventory's view, while a
   * deployment turns it on instance by instance.
   */
  public boolean applied(ViewMark mark) {
    for (Map.Entry<String, Map<Integer, Long>> store : mark.offsets().entrySet()) {
      if (!held.contains(store.getKey())) {
        continue;
      }
      Map<Integer, AtomicLong> positions = done.getOrDefault(store.getKey(), Map.of());
      for (Map.Entry<Integer, Long> p : store.getValue().entrySet()) {
        AtomicLong at = positions.get(p.getKey());
        if (at == null || at.get() < p.getValue()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Waits until this instance has {@link #applied} {@code mark}, at most {@code max}, woken as
   * records are done; at once "not" when {@link #MAX_WAITING} requests wait already.
   *
   * @return whether it has
   */
  public boolean awaitApplied(ViewMark mark, java.time.Duration max) throws InterruptedException {
    if (applied(mark)) {
      return true;
    }
    if (waiting.incrementAndGet() > MAX_WAITING) {
      waiting.decrementAndGet();
      return false;
    }
    long deadline = System.nanoTime() + max.toNanos();
    try {
      while (true) {
        long seen = doneCount.get();
        if (applied(mark)) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        synchronized (applied) {
          if (doneCount.get() == seen) { // nothing done since the check: sleep until one is
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(applied, left);
          }
        }
      }
    } finally {
      waiting.decrementAndGet();
    }
  }

  /** Requests waiting in {@link #awaitApplied} now. */
  public int waiting() {
    return waiting.get();
  }

  /** How many changes {@code store} has seen on this instance. */
  public long version(String store) {
    AtomicLong v = versions.get(store);
    return v == null ? 0 : v.get();
  }
}
