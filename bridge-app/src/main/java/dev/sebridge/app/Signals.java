package dev.sebridge.app;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stopping on SIGTERM and SIGINT, and on every other way the JVM shuts down.
 *
 * <p>A JVM killed by SIGTERM exits 143 after its shutdown hooks; the agent must flush and exit 0
 * instead, so it takes SIGTERM and SIGINT itself ({@code sun.misc.Signal}, in the jdk.unsupported
 * module, the only JDK API for this). Where that is not possible (Windows service stops, SIGHUP,
 * {@code System.exit} elsewhere) the JVM runs its shutdown hooks and then halts: the hook installed
 * here then waits, at most {@code bound}, until the command reports {@link Termination#stopped()},
 * so the agent's flush is not cut short.
 */
public final class Signals {
  private Signals() {}

  /** Installs the handlers and the shutdown hook. */
  @SuppressWarnings("restriction")
  public static Termination install(Duration bound) {
    Termination t = new Termination();
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), s -> t.signal("SIG" + s.getName()));
      } catch (IllegalArgumentException e) {
        // Not available on this platform (e.g. TERM on some Windows JVMs): the hook stops us.
      }
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  t.signal("shutdown");
                  t.awaitStopped(bound);
                },
                "sebridge-shutdown"));
    return t;
  }

  /** A command's side of a stop: wait for one, say when it is done. */
  public static final class Termination {
    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<String> signal = new AtomicReference<>();

    private void signal(String name) {
      signal.compareAndSet(null, name);
      requested.countDown();
    }

    /** Blocks until a stop is requested; returns what requested it (e.g. {@code SIGTERM}). */
    public String await() throws InterruptedException {
      requested.await();
      return signal.get();
    }

    /** The command has stopped (flushed, released its state): the JVM may exit. */
    public void stopped() {
      stopped.countDown();
    }

    private void awaitStopped(Duration bound) {
      try {
        stopped.await(bound.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
