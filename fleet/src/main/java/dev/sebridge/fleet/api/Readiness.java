package dev.sebridge.fleet.api;

import dev.sebridge.concurrent.DaemonThreads;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /readyz}'s answer, computed once at start and then every second on a thread of its own:
 * the request only reads it, so a slow broker (the lag queries behind readiness) never holds a
 * request, and a probe is answered at once whatever the service is doing.
 */
final class Readiness implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Readiness.class);

  private final Supplier<List<String>> problems;
  private final AtomicReference<List<String>> last =
      new AtomicReference<>(List.of("not checked yet"));
  private final ScheduledExecutorService checker =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("fleet-readiness"));

  Readiness(Supplier<List<String>> problems) {
    this.problems = problems;
  }

  void start() {
    check();
    checker.scheduleWithFixedDelay(this::check, 1, 1, TimeUnit.SECONDS);
  }

  boolean ready() {
    return last.get().isEmpty();
  }

  private void check() {
    try {
      last.set(List.copyOf(problems.get()));
    } catch (RuntimeException e) {
      LOG.warn("readiness could not be checked: {}", e.toString());
      last.set(List.of("readiness could not be checked: " + e));
    }
  }

  @Override
  public void close() {
    checker.shutdownNow();
  }
}
