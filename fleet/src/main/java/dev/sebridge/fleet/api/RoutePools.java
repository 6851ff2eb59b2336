package dev.sebridge.fleet.api;

import dev.sebridge.concurrent.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The bounded pools {@link FleetServer}'s routes run on: one for the API's requests with a
 * principal ({@link HttpLimits#threads()}, {@link HttpLimits#queue()}), one of the same size for
 * the page's requests with a principal, and one, an eighth of that size, for requests nobody signed
 * in to ({@link HttpLimits#anonymousThreads()}). However many of one kind come, they never take a
 * thread or a place in the queue from the others: 200 live pages asking for their sections at once
 * held the API's reads behind them (FLEET-REPORT.md, "Fleet at 100,000 VMs"), as anonymous requests
 * held everyone's before.
 */
final class RoutePools {
  /** Which pool a request runs on. */
  enum Pool {
    API,
    PAGE,
    ANONYMOUS;

    /** A request's pool: by its principal, then by whether its path is the API's. */
    static Pool of(boolean api, boolean withPrincipal) {
      return !withPrincipal ? ANONYMOUS : api ? API : PAGE;
    }
  }

  private final java.util.Map<Pool, ThreadPoolExecutor> pools = new java.util.EnumMap<>(Pool.class);

  RoutePools(HttpLimits limits) {
    pools.put(Pool.API, pool(limits.threads(), limits.queue(), DaemonThreads.named("fleet-api")));
    pools.put(Pool.PAGE, pool(limits.threads(), limits.queue(), DaemonThreads.named("fleet-page")));
    pools.put(
        Pool.ANONYMOUS,
        pool(
            limits.anonymousThreads(),
            limits.anonymousQueue(),
            DaemonThreads.named("fleet-anonymous")));
  }

  private static ThreadPoolExecutor pool(
      int threads, int queue, java.util.concurrent.ThreadFactory names) {
    return new ThreadPoolExecutor(
        threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), names);
  }

  /** Whether every thread of the pool is busy and its queue full: a request now gets 503. */
  boolean full(Pool which) {
    ThreadPoolExecutor pool = pools.get(which);
    return pool.getQueue().remainingCapacity() == 0
        && pool.getActiveCount() >= pool.getMaximumPoolSize();
  }

  /** A route waiting for a thread, and its request: answered by the server if it never runs. */
  private record Queued(HttpCall call, Runnable route) implements Runnable {
    @Override
    public void run() {
      route.run();
    }
  }

  /**
   * Runs {@code route}, the answer to {@code call}, on the pool.
   *
   * @throws RejectedExecutionException when its threads and queue are all taken, or it is closed
   */
  void execute(Pool which, HttpCall call, Runnable route) {
    pools.get(which).execute(new Queued(call, route));
  }

  /** Whether {@link #close} began: a route is no longer taken. */
  boolean closed() {
    return pools.get(Pool.API).isShutdown();
  }

  /** Requests waiting for a thread (tests). */
  int waiting(Pool which) {
    return pools.get(which).getQueue().size();
  }

  /** Stops them all at once (a server that did not start). */
  void shutdownNow() {
    pools.values().forEach(ThreadPoolExecutor::shutdownNow);
  }

  /**
   * Takes no more routes; the routes under way and waiting get {@code drain} to finish (a write
   * waits for the broker at most its own deadline) before the service closes the views and the
   * producer under them. Past it, the ones running are interrupted (a write then answers 503 with
   * its state unknown), and the ones still waiting never run.
   *
   * @return the requests whose routes never ran: the server answers them
   */
  List<HttpCall> close(Duration drain) {
    pools.values().forEach(ThreadPoolExecutor::shutdown);
    List<Runnable> neverRan = new ArrayList<>();
    awaitAll(drain);
    pools.values().forEach(p -> neverRan.addAll(p.shutdownNow()));
    // The interrupted routes answer (their catch blocks), before the connections close: a second
    // for all the pools together.
    awaitAll(Duration.ofSeconds(1));
    List<HttpCall> calls = new ArrayList<>();
    for (Runnable r : neverRan) {
      if (r instanceof Queued q) {
        calls.add(q.call());
      }
    }
    return calls;
  }

  private void awaitAll(Duration bound) {
    long end = System.nanoTime() + bound.toNanos();
    try {
      for (ThreadPoolExecutor p : pools.values()) {
        p.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
