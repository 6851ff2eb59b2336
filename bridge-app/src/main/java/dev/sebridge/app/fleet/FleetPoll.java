package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Reads one of the service's resources again and again until it is what a command waits for (an
 * approval's results, a rollout's end), riding out what a restart or a busy instance answers: a 404
 * (the view has not caught up with the write yet), a 502/503/504 or a failed connection are read
 * again, no sooner than the service's {@code Retry-After}. Any other answer (401, 403, 500) ends
 * the wait at once: reading again would not change it.
 */
final class FleetPoll {
  private final FleetClient client;
  private final String path;
  private final Duration every;

  FleetPoll(FleetClient client, String path, Duration every) {
    this.client = client;
    this.path = path;
    this.every = every;
  }

  /**
   * The first answer {@code done} takes, each answer handed to {@code each} first; {@link
   * TimeoutException} when none came within {@code timeout} (its message names the last failure
   * read again, if any; {@link #since}), {@link IOException} for an answer not to read again.
   */
  JsonNode until(Predicate<JsonNode> done, Consumer<JsonNode> each, Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    CompletableFuture<JsonNode> end = new CompletableFuture<>();
    AtomicReference<IOException> last = new AtomicReference<>();
    ScheduledExecutorService poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sebridge-fleet-poll");
              t.setDaemon(true);
              return t;
            });
    try {
      poller.execute(() -> read(poller, end, last, done, each));
      return end.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    } catch (TimeoutException e) {
      IOException seen = last.get();
      throw new TimeoutException(
          seen == null
              ? null
              : "last read: " + (seen.getMessage() == null ? seen.toString() : seen.getMessage()));
    } finally {
      poller.shutdownNow();
      // A read under way is interrupted; one already handing its answer on finishes first, so
      // nothing it prints comes after what the command prints next (a read that ignores its
      // interrupt is left to its own timeout).
      try {
        poller.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // (what the wait ended with stands)
      }
    }
  }

  private void read(
      ScheduledExecutorService poller,
      CompletableFuture<JsonNode> end,
      AtomicReference<IOException> last,
      Predicate<JsonNode> done,
      Consumer<JsonNode> each) {
    Duration next = every;
    try {
      JsonNode r = client.get(path);
      last.set(null); // read: what failed before is no longer why the wait goes on
      each.accept(r);
      if (done.test(r)) {
        end.complete(r);
        return;
      }
    } catch (FleetClient.ApiError e) {
      if (e.status != 404 && !e.transientFailure()) {
        end.completeExceptionally(e);
        return;
      }
      last.set(e);
      next = e.retryAfter.filter(after -> after.compareTo(every) > 0).orElse(every);
    } catch (IOException e) { // refused, reset, timed out: an instance restarting
      last.set(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return; // the wait is over (shutdownNow)
    } catch (RuntimeException | Error e) {
      end.completeExceptionally(e); // never a poll that stops unseen, leaving the wait to time out
      return;
    }
    try {
      poller.schedule(
          () -> read(poller, end, last, done, each), next.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // the wait is over
    }
  }

  /** " (the last failure read again)" of a wait that timed out, or nothing when there was none. */
  static String since(TimeoutException e) {
    return e.getMessage() == null ? "" : " (" + e.getMessage() + ")";
  }
}
