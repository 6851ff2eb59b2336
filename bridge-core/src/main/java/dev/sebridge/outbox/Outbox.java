package dev.sebridge.outbox;

import dev.sebridge.concurrent.Deadline;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable outbox between the agent and its sinks ({@code state.dir/outbox}).
 *
 * <p>{@link #publish} returns once the envelopes are fsynced in the outbox: that is when the agent
 * may commit its own state. Each sink then gets them from its own worker, in order, and the sink's
 * cursor ({@code outbox/cursor-<sink>}) moves only after the sink confirmed; after a restart every
 * sink resumes from its cursor. A segment is deleted once every sink is past it.
 *
 * <p>Bounded: above {@link OutboxSettings#maxBytes()} sheddable envelopes (heartbeats) are refused;
 * scheduled-event transitions are stored anyway, with an error logged and counted in {@link
 * #overflows()}: losing a maintenance notice to protect disk space is the wrong trade for envelopes
 * of a few KiB that arrive a few times an hour.
 */
public final class Outbox implements EnvelopePublisher {
  private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);

  private final OutboxLog log;
  private final Clock clock;
  private final OutboxSettings settings;
  private final Map<String, SinkWorker> workers = new LinkedHashMap<>();
  private final AtomicLong overflows = new AtomicLong();
  private final AtomicLong shed = new AtomicLong();
  private volatile boolean closed;
  private final java.util.concurrent.locks.ReentrantLock progressLock =
      new java.util.concurrent.locks.ReentrantLock();
  private final java.util.concurrent.locks.Condition progress = progressLock.newCondition();
  private long deliveredEverywhere; // guarded by progressLock

  public Outbox(StateDirectory state, List<EventSink> sinks, OutboxSettings settings, Clock clock) {
    this(
        state,
        sinks,
        settings,
        clock,
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
  }

  /** An outbox reporting {@code sebridge.outbox.*} and {@code sebridge.envelopes.*} metrics. */
  public Outbox(
      StateDirectory state,
      List<EventSink> sinks,
      OutboxSettings settings,
      Clock clock,
      io.micrometer.core.instrument.MeterRegistry registry) {
    this(state, sinks, settings, clock, registry, CrashPoints.none());
  }

  /** The same, with crash points (the crash-point campaign). */
  public Outbox(
      StateDirectory state,
      List<EventSink> sinks,
      OutboxSettings settings,
      Clock clock,
      io.micrometer.core.instrument.MeterRegistry registry,
      CrashPoints crashPoints) {
    this.clock = clock;
    this.settings = settings;
    this.log = new OutboxLog(state.resolve("outbox"), settings.segmentBytes(), crashPoints);
    for (EventSink s : sinks) {
      if (workers.containsKey(s.name())) {
        throw new IllegalArgumentException("two sinks are named " + s.name());
      }
      SinkWorker w =
          new SinkWorker(s, log, state, settings, this::onProgress, registry, clock, crashPoints);
      workers.put(s.name(), w);
      io.micrometer.core.instrument.Gauge.builder(
              "sebridge.outbox.depth", this, o -> o.pending(s.name()))
          .tag("sink", s.name())
          .description("envelopes stored but not yet confirmed by the sink")
          .register(registry);
    }
    io.micrometer.core.instrument.Gauge.builder("sebridge.outbox.bytes", log, OutboxLog::sizeBytes)
        .description("size of the outbox on disk")
        .baseUnit("bytes")
        .register(registry);
    io.micrometer.core.instrument.Gauge.builder(
            "sebridge.outbox.oldest.age", this, Outbox::oldestPendingAgeSeconds)
        .description("age of the oldest envelope some sink has not confirmed")
        .baseUnit("seconds")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "sebridge.outbox.overflows", overflows, AtomicLong::get)
        .description("transitions stored while the outbox was over its limit")
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "sebridge.outbox.shed", shed, AtomicLong::get)
        .description("heartbeats dropped because the outbox was full")
        .register(registry);
    deliveredEverywhere = minCursor();
    long pending = log.lastSeq() - minCursor();
    if (pending > 0) {
      LOG.info("outbox holds {} envelopes not yet delivered everywhere; resuming", pending);
    }
    workers.values().forEach(SinkWorker::start);
  }

  @Override
  public void publish(List<Envelope> envelopes) {
    append(envelopes, false);
  }

  @Override
  public boolean publishSheddable(List<Envelope> envelopes) {
    return append(envelopes, true);
  }

  private boolean append(List<Envelope> envelopes, boolean sheddable) {
    if (closed) {
      throw new IllegalStateException("the outbox is closed");
    }
    if (envelopes.isEmpty()) {
      return true;
    }
    if (log.sizeBytes() >= settings.maxBytes()) {
      if (sheddable) {
        shed.addAndGet(envelopes.size());
        LOG.warn(
            "outbox full ({} bytes): dropped {} heartbeat envelopes",
            log.sizeBytes(),
            envelopes.size());
        return false;
      }
      overflows.addAndGet(envelopes.size());
      LOG.error(
          "outbox over its limit ({} of {} bytes: a sink has been failing for long); storing {}"
              + " scheduled-event envelopes anyway",
          log.sizeBytes(),
          settings.maxBytes(),
          envelopes.size());
    }
    log.append(envelopes, sheddable, clock.millis());
    workers.values().forEach(SinkWorker::wake);
    return true;
  }

  /** Seconds since the oldest envelope not yet confirmed everywhere was stored (0 when none). */
  public double oldestPendingAgeSeconds() {
    long oldest = Long.MAX_VALUE;
    for (SinkWorker w : workers.values()) {
      oldest = Math.min(oldest, w.oldestPendingMillis());
    }
    return oldest == Long.MAX_VALUE ? 0 : Math.max(0, (clock.millis() - oldest) / 1000.0);
  }

  private long minCursor() {
    long min = log.lastSeq();
    for (SinkWorker w : workers.values()) {
      min = Math.min(min, w.cursor());
    }
    return min;
  }

  /** A sink worker moved its cursor: drop what every sink has, wake whoever waits for it. */
  private void onProgress() {
    progressLock.lock();
    try {
      long min = minCursor();
      log.deleteUpTo(min);
      deliveredEverywhere = Math.max(deliveredEverywhere, min);
      progress.signalAll();
    } finally {
      progressLock.unlock();
    }
  }

  @Override
  public List<String> problems() {
    List<String> failing = failingSinks();
    return failing.isEmpty() ? List.of() : List.of("sinks failing: " + String.join(", ", failing));
  }

  @Override
  public Status status() {
    return new Status(sizeBytes(), pendingBySink());
  }

  /** Names of the sinks that keep failing. */
  public List<String> failingSinks() {
    return workers.values().stream().filter(w -> !w.healthy()).map(SinkWorker::sinkName).toList();
  }

  /** Envelopes stored but not yet confirmed by this sink. */
  public long pending(String sink) {
    return log.lastSeq() - workers.get(sink).cursor();
  }

  /** Envelopes not yet confirmed, by sink. */
  public java.util.Map<String, Long> pendingBySink() {
    java.util.Map<String, Long> m = new java.util.TreeMap<>();
    workers.keySet().forEach(n -> m.put(n, pending(n)));
    return m;
  }

  public long delivered(String sink) {
    return workers.get(sink).delivered();
  }

  public long failures(String sink) {
    return workers.get(sink).failures();
  }

  public long sizeBytes() {
    return log.sizeBytes();
  }

  /** Transitions stored above the size limit. */
  public long overflows() {
    return overflows.get();
  }

  /** Sheddable envelopes refused because the outbox was full. */
  public long shed() {
    return shed.get();
  }

  /**
   * Waits until every sink has confirmed everything stored so far (and what they all have is
   * deleted).
   */
  public boolean awaitDelivered(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long target = log.lastSeq();
    progressLock.lock();
    try {
      while (deliveredEverywhere < target) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        progress.awaitNanos(left);
      }
      return true;
    } finally {
      progressLock.unlock();
    }
  }

  /**
   * Stops taking envelopes, gives the sinks up to {@code timeout} to deliver what is stored, then
   * stops the workers and shuts the sinks down. Whatever is left stays in the outbox for the next
   * run.
   */
  @Override
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    closed = true;
    Deadline deadline = Deadline.after(timeout);
    try {
      if (!awaitDelivered(timeout)) {
        LOG.warn(
            "stopping with envelopes not yet delivered to {}; they stay in the outbox for the next run",
            failingOrPending());
      }
      // All told at once, then each waited for within what is left of the one deadline.
      workers.values().forEach(SinkWorker::requestStop);
      for (SinkWorker w : workers.values()) {
        w.awaitStop(deadline.remaining());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<CompletableFuture<Void>> shutdowns = new ArrayList<>();
    for (SinkWorker w : workers.values()) {
      try {
        shutdowns.add(w.sink().shutdown());
      } catch (RuntimeException e) {
        LOG.warn("sink {} failed to shut down: {}", w.sinkName(), e.toString());
      }
    }
    try {
      CompletableFuture.allOf(shutdowns.toArray(CompletableFuture[]::new))
          .get(Math.max(1000, deadline.remaining().toMillis()), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("sinks did not shut down cleanly: {}", e.toString());
    }
    log.close();
  }

  private List<String> failingOrPending() {
    return workers.values().stream()
        .filter(w -> w.cursor() < log.lastSeq())
        .map(SinkWorker::sinkName)
        .toList();
  }
}
