package dev.sebridge.app.fleet;

import dev.sebridge.app.Main;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.fleet.model.EventView;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/** What the fleet demo shows and waits for: the CLI's commands as a user types them, conditions. */
final class DemoConsole {
  private final PrintWriter out;
  private final PrintWriter err;
  private final Duration timeout;

  DemoConsole(PrintWriter out, PrintWriter err, Duration timeout) {
    this.out = out;
    this.err = err;
    this.timeout = timeout;
  }

  PrintWriter out() {
    return out;
  }

  /** Waits (polling every 100 ms) until {@code done} holds. */
  void awaitCondition(String what, java.util.function.BooleanSupplier done) throws Exception {
    CompletableFuture<Void> reached = new CompletableFuture<>();
    java.util.concurrent.atomic.AtomicReference<RuntimeException> last =
        new java.util.concurrent.atomic.AtomicReference<>();
    ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor();
    try {
      poll.scheduleWithFixedDelay(
          () -> {
            try {
              if (done.getAsBoolean()) {
                reached.complete(null);
              }
            } catch (RuntimeException storesNotReadyYet) {
              last.set(storesNotReadyYet); // a rebalance: next time
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
      reached.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      IllegalStateException failed =
          new IllegalStateException("demo: " + what + " did not happen in " + timeout, e);
      if (last.get() != null) {
        failed.addSuppressed(last.get());
      }
      throw failed;
    } finally {
      poll.shutdownNow();
    }
  }

  /** Shows {@code $ sebridge <shown>}, then runs the command line {@code args}. */
  int cli(String shown, String... args) {
    out.println();
    out.println("$ sebridge " + shown);
    out.flush();
    return Main.execute(out, err, args);
  }

  /** Waits (polling the view every 100 ms) until the event's view satisfies {@code done}. */
  void await(FleetService fleet, String eventId, Predicate<EventView> done) throws Exception {
    awaitCondition("event " + eventId, () -> fleet.views().event(eventId).filter(done).isPresent());
  }
}
