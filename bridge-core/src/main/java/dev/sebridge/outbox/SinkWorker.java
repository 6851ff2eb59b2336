package dev.sebridge.outbox;

import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the outbox to one sink, on a thread of its own: reads the records after the sink's
 * cursor, exports them, and moves the cursor (persisted) only once the sink confirmed. Failures are
 * retried with exponential backoff and jitter; a circuit breaker stops calling a sink that keeps
 * failing and probes it again later. One slow or dead sink never holds back another.
 */
final class SinkWorker implements Runnable {
  /** The least a stop waits for an export in hand before interrupting it. */
  static final Duration LEAST_STOP_WAIT = Duration.ofMillis(200);

  private static final Logger LOG = LoggerFactory.getLogger(SinkWorker.class);

  /** Failed attempts after which the sink is reported not ready; earlier ones heal. */
  static final int REPORT_AFTER_ATTEMPTS = 3;

  /** A destination asking for longer pauses than this is asked again after this. */
  static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

  private final EventSink sink;
  private final OutboxLog log;
  private final StateDirectory state;
  private final String cursorFile;
  private final OutboxSettings settings;
  private final Runnable onProgress;
  private final IntervalFunction backoff;
  private final CircuitBreaker breaker;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();

  private volatile long cursor;
  private volatile boolean stopping;
  private volatile int failedAttempts;
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private Thread thread;

  private final io.micrometer.core.instrument.Counter publishedCounter;
  private final io.micrometer.core.instrument.Counter failedCounter;
  private final io.micrometer.core.instrument.Timer lag;
  private final java.time.Clock clock;
  private volatile long oldestPendingMillis = Long.MAX_VALUE;
  private final CrashPoints crashPoints;
  private final SinkOutage outage;

  SinkWorker(
      EventSink sink,
      OutboxLog log,
      StateDirectory state,
      OutboxSettings settings,
      Runnable onProgress,
      io.micrometer.core.instrument.MeterRegistry registry,
      java.time.Clock clock,
      CrashPoints crashPoints) {
    this.clock = clock;
    this.crashPoints = crashPoints;
    this.outage = new SinkOutage(sink.name(), settings.warnAfter());
    this.publishedCounter =
        io.micrometer.core.instrument.Counter.builder("sebridge.envelopes.published")
            .tag("sink", sink.name())
            .description("envelopes confirmed by the sink")
            .register(registry);
    this.failedCounter =
        io.micrometer.core.instrument.Counter.builder("sebridge.envelopes.failed")
            .tag("sink", sink.name())
            .description("envelopes in exports the sink failed (they are retried)")
            .register(registry);
    this.lag =
        io.micrometer.core.instrument.Timer.builder("sebridge.publish.lag")
            .tag("sink", sink.name())
            .description(
                "time from an envelope stored in the outbox to its confirmation by the sink")
            .register(registry);
    this.sink = sink;
    this.log = log;
    this.state = state;
    this.cursorFile = "outbox/cursor-" + sink.name();
    this.settings = settings;
    this.onProgress = onProgress;
    this.backoff =
        IntervalFunction.ofExponentialRandomBackoff(
            Duration.ofMillis(Math.min(250, settings.maxBackoff().toMillis())),
            2.0,
            0.5,
            settings.maxBackoff());
    this.breaker =
        CircuitBreaker.of(
            "sink-" + sink.name(),
            CircuitBreakerConfig.custom()
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(settings.maxBackoff())
                .permittedNumberOfCallsInHalfOpenState(1)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .recordException(e -> true)
                .build());
    this.cursor = readCursor().orElse(log.firstSeq() - 1);
  }

  private Optional<Long> readCursor() {
    return state
        .read(cursorFile)
        .flatMap(
            b -> {
              try {
                return Optional.of(Long.parseLong(new String(b, StandardCharsets.UTF_8).trim()));
              } catch (NumberFormatException e) {
                state.quarantine(cursorFile, "not a sequence number");
                return Optional.empty();
              }
            });
  }

  String sinkName() {
    return sink.name();
  }

  EventSink sink() {
    return sink;
  }

  long cursor() {
    return cursor;
  }

  long delivered() {
    return delivered.get();
  }

  long failures() {
    return failures.get();
  }

  /** When the oldest envelope this sink has not confirmed was stored (MAX_VALUE when none). */
  long oldestPendingMillis() {
    return oldestPendingMillis;
  }

  boolean healthy() {
    return failedAttempts < REPORT_AFTER_ATTEMPTS;
  }

  CircuitBreaker.State breakerState() {
    return breaker.getState();
  }

  void start() {
    thread = DaemonThreads.start("sebridge-sink-" + sink.name(), this);
  }

  /** New records are durable: look for them now. */
  void wake() {
    lock.lock();
    try {
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Tells the worker to stop after the export in hand. */
  void requestStop() {
    stopping = true;
    wake();
  }

  /** Waits up to {@code timeout} (at least {@link #LEAST_STOP_WAIT}) for it, then interrupts. */
  void awaitStop(Duration timeout) throws InterruptedException {
    if (thread != null) {
      // join(0) would wait for ever; an export in hand that is about to end gets to end.
      thread.join(Math.max(LEAST_STOP_WAIT.toMillis(), timeout.toMillis()));
      if (thread.isAlive()) {
        thread.interrupt(); // stuck in an export: the records stay in the outbox
        thread.join(1000);
      }
    }
  }

  @Override
  public void run() {
    List<OutboxRecord> batch = List.of();
    while (!stopping) {
      try {
        if (batch.isEmpty()) {
          // Idle until an append wakes us (no disk reads while there is nothing to deliver).
          batch =
              log.lastSeq() > cursor
                  ? log.read(cursor, settings.batchSize(), 1024L * 1024)
                  : List.of();
          if (batch.isEmpty()) {
            oldestPendingMillis = Long.MAX_VALUE;
            await(Duration.ofSeconds(30));
            continue;
          }
          oldestPendingMillis = batch.get(0).appendedAtMillis();
        }
        if (!breaker.tryAcquirePermission()) {
          // Open: the breaker lets a probe through once its wait is over.
          outage.check(clock.instant(), log.lastSeq() - cursor);
          await(Duration.ofMillis(Math.min(1000, settings.maxBackoff().toMillis())));
          continue;
        }
        long start = System.nanoTime();
        Instant attemptStart = clock.instant();
        Throwable failure = export(batch);
        long took = System.nanoTime() - start;
        if (failure == null) {
          breaker.onSuccess(took, TimeUnit.NANOSECONDS);
          long last = batch.get(batch.size() - 1).seq();
          crashPoints.reach(CrashPoints.SINK_AFTER_EXPORT);
          state.write(cursorFile, Long.toString(last).getBytes(StandardCharsets.UTF_8));
          cursor = last;
          delivered.addAndGet(batch.size());
          publishedCounter.increment(batch.size());
          long now = clock.millis();
          for (OutboxRecord r : batch) {
            lag.record(Duration.ofMillis(Math.max(0, now - r.appendedAtMillis())));
          }
          outage.delivered(clock.instant(), batch.size());
          failedAttempts = 0;
          batch = List.of();
          onProgress.run();
        } else {
          breaker.onError(took, TimeUnit.NANOSECONDS, failure);
          failures.incrementAndGet();
          failedCounter.increment(batch.size());
          int attempt = ++failedAttempts;
          Instant now = clock.instant();
          outage.failed(
              attemptStart,
              now,
              failure,
              log.lastSeq() - cursor,
              failure instanceof RetriableSinkException);
          Duration delay = retryDelay(failure, attempt);
          Duration untilWarn = outage.untilWarn(now);
          awaitRetry(untilWarn.compareTo(delay) < 0 ? untilWarn : delay);
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // A bug or a disk problem: keep the worker alive, retry later.
        LOG.error("delivering to sink {} failed unexpectedly", sink.name(), e);
        try {
          await(settings.maxBackoff());
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }

  /**
   * The wait before the next attempt: the backoff for retriable failures, but never shorter than
   * what the destination asked for (Retry-After, capped at {@link #MAX_RETRY_AFTER}); the longest
   * backoff for failures that will not heal by themselves (they are still retried: nothing is
   * dropped).
   */
  Duration retryDelay(Throwable failure, int attempt) {
    if (!(failure instanceof RetriableSinkException r)) {
      return settings.maxBackoff();
    }
    Duration delay = Duration.ofMillis(backoff.apply(attempt));
    Duration asked = r.retryAfter().orElse(Duration.ZERO);
    if (asked.compareTo(MAX_RETRY_AFTER) > 0) {
      asked = MAX_RETRY_AFTER;
    }
    return asked.compareTo(delay) > 0 ? asked : delay;
  }

  private Throwable export(List<OutboxRecord> batch) throws InterruptedException {
    List<Envelope> envelopes = batch.stream().map(OutboxRecord::envelope).toList();
    CompletableFuture<Void> f;
    try {
      f = sink.export(envelopes);
    } catch (RuntimeException e) {
      return e;
    }
    try {
      f.get(settings.exportTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return new RetriableSinkException("no confirmation within " + settings.exportTimeout());
    }
  }

  /**
   * Waits the whole retry delay: new envelopes (a wake) do not make a failing sink worth asking
   * sooner, and a destination that asked for a pause gets it. Only a stop ends it early.
   */
  private void awaitRetry(Duration d) throws InterruptedException {
    long deadline = System.nanoTime() + d.toNanos();
    lock.lock();
    try {
      long left;
      while (!stopping && (left = deadline - System.nanoTime()) > 0) {
        wake.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException();
    }
  }

  private void await(Duration d) throws InterruptedException {
    lock.lock();
    try {
      if (!stopping) {
        wake.await(d.toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException();
    }
  }
}
