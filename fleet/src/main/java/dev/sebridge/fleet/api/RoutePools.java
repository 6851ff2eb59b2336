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
 * The bounded pools {@link FleetServer}'s routes run on: one for requests with a principal ({@link
 * HttpLimits#threads()}, {@link HttpLimits#queue()}), and one, an eighth of that size, for requests
 * nobody signed in to ({@link HttpLimits#anonymousThreads()}): however many of those come, they
 * never take a thread or a place in the queue from the API or a signed-in page.
 */
final class RoutePools {
  private final ThreadPoolExecutor signedIn;
  private final ThreadPoolExecutor anonymous;

  RoutePools(HttpLimits limits) {
    this.signedIn = pool(limits.threads(), limits.queue(), DaemonThreads.named("fleet-api"));
    this.anonymous =
        pool(
            limits.anonymousThreads(),
            limits.anonymousQueue(),
            DaemonThreads.named("fleet-anonymous"));
  }

  private static ThreadPoolExecutor pool(
      int threads, int queue, java.util.concurrent.ThreadFactory names) {
    return new ThreadPoolExecutor(
        threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), names);
  }

  private ThreadPoolExecutor of(boolean withPrincipal) {
    return withPrincipal ? signedIn : anonymous;
  }

  /** Whether every thread of the pool is busy and its queue full: a request now gets 503. */
  boolean full(boolean withPrincipal) {
    ThreadPoolExecutor pool = of(withPrincipal);
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
  void execute(boolean withPrincipal, HttpCall call, Runnable route) {
    of(withPrincipal).execute(new Queued(call, route));
  }

  /** Whether {@link #close} began: a route is no longer taken. */
  boolean closed() {
    return signedIn.isShutdown();
  }

  /** Requests waiting for a thread (tests). */
  int waiting(boolean withPrincipal) {
    return of(withPrincipal).getQueue().size();
  }

  /** Stops both at once (a server that did not start). */
  void shutdownNow() {
    signedIn.shutdownNow();
    anonymous.shutdownNow();
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
    signedIn.shutdown();
    anonymous.shutdown();
    List<Runnable> neverRan = new ArrayList<>();
    try {
      long end = System.nanoTime() + drain.toNanos();
      signedIn.awaitTermination(drain.toNanos(), TimeUnit.NANOSECONDS);
      anonymous.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    neverRan.addAll(signedIn.shutdownNow());
    neverRan.addAll(anonymous.shutdownNow());
    try {
      // The interrupted routes answer (their catch blocks), before the connections close: a
      // second for both pools together.
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      signedIn.awaitTermination(1, TimeUnit.SECONDS);
      anonymous.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<HttpCall> calls = new ArrayList<>();
    for (Runnable r : neverRan) {
      if (r instanceof Queued q) {
        calls.add(q.call());
      }
    }
    return calls;
  }
}
