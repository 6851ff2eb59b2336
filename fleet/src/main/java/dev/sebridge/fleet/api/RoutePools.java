package dev.sebridge.fleet.api;

import dev.sebridge.concurrent.DaemonThreads;
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
final class RoutePools implements AutoCloseable {
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

  /**
   * Runs {@code route} on the pool.
   *
   * @throws RejectedExecutionException when its threads and queue are all taken
   */
  void execute(boolean withPrincipal, Runnable route) {
    of(withPrincipal).execute(route);
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
   * The routes under way finish (a write waits for the broker at most its own deadline) before the
   * service closes the views and the producer under them; past this, they are interrupted.
   */
  @Override
  public void close() {
    signedIn.shutdown();
    anonymous.shutdown();
    try {
      signedIn.awaitTermination(5, TimeUnit.SECONDS);
      anonymous.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    shutdownNow();
  }
}
