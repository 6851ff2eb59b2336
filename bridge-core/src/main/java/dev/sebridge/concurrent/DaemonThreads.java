package dev.sebridge.concurrent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's threads: daemon threads with names that say their role ({@code sebridge-poller},
 * {@code sebridge-sink-kafka}...), so a thread dump reads like the architecture page. Every thread
 * the agent starts comes from here.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A factory whose threads are named {@code name}, then {@code name-2}, {@code name-3}... */
  public static ThreadFactory named(String name) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      int n = count.incrementAndGet();
      Thread t = new Thread(r, n == 1 ? name : name + "-" + n);
      t.setDaemon(true);
      return t;
    };
  }

  /** Starts {@code task} on a new daemon thread named {@code name}. */
  public static Thread start(String name, Runnable task) {
    Thread t = named(name).newThread(task);
    t.start();
    return t;
  }
}
