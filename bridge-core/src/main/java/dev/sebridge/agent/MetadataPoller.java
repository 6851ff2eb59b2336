package dev.sebridge.agent;

import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.config.Configuration;
import dev.sebridge.config.CoreKeys;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.ScheduledEventsDocument;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the scheduled events document at a fixed cadence and hands every valid document to a {@link
 * DocumentHandler}.
 *
 * <p>Cadence: ticks at {@code start + n * interval} on the monotonic clock, so handling time does
 * not make it drift; ticks missed while the handler was blocked are skipped, not bursted (IMDS
 * allows 5 requests per second).
 *
 * <p>Failures are never read as "no events": the handler only ever sees valid documents. Transient
 * failures back off exponentially with jitter (resilience4j), HTTP 429 harder; HTTP 400 means our
 * request is malformed, which no retry fixes: it is logged as an error and polled at the slowest
 * pace, never in a tight loop. Until IMDS first answers, requests may take up to the first-request
 * timeout (enabling Scheduled Events for a VM can take 2 minutes).
 */
public final class MetadataPoller {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataPoller.class);

  /** Failures last longer than this before they are worth a WARN. */
  private static final Duration WARN_AFTER = Duration.ofSeconds(30);

  private final Imds client;
  private final DocumentHandler handler;
  private final PollStats stats;
  private final Clock clock;
  private final Duration interval;
  private final Duration requestTimeout;
  private final Duration firstRequestTimeout;
  private final Duration maxBackoff;
  private final IntervalFunction backoff;
  private final IntervalFunction throttledBackoff;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private volatile boolean stopped;
  private Thread thread;
  private boolean answeredOnce;

  MetadataPoller(
      Imds client,
      DocumentHandler handler,
      PollStats stats,
      Clock clock,
      Duration interval,
      Duration requestTimeout,
      Duration firstRequestTimeout,
      Duration maxBackoff) {
    this.client = client;
    this.handler = handler;
    this.stats = stats;
    this.clock = clock;
    this.interval = interval;
    this.requestTimeout = requestTimeout;
    this.firstRequestTimeout = firstRequestTimeout;
    this.maxBackoff = maxBackoff;
    this.backoff = IntervalFunction.ofExponentialRandomBackoff(interval, 2.0, 0.5, maxBackoff);
    Duration throttledStart =
        interval.multipliedBy(4).compareTo(Duration.ofSeconds(2)) > 0
            ? interval.multipliedBy(4)
            : Duration.ofSeconds(2);
    this.throttledBackoff =
        IntervalFunction.ofExponentialRandomBackoff(
            min(throttledStart, maxBackoff), 3.0, 0.5, maxBackoff);
  }

  /** A poller with the {@code imds.*} timing settings. */
  static MetadataPoller create(
      Imds client, DocumentHandler handler, PollStats stats, Clock clock, Configuration config) {
    return new MetadataPoller(
        client,
        handler,
        stats,
        clock,
        config.get(CoreKeys.IMDS_POLL_INTERVAL),
        config.get(CoreKeys.IMDS_REQUEST_TIMEOUT),
        config.get(CoreKeys.IMDS_FIRST_REQUEST_TIMEOUT),
        config.get(CoreKeys.IMDS_MAX_BACKOFF));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Starts polling on the {@code sebridge-poller} thread. */
  void start() {
    thread = DaemonThreads.start("sebridge-poller", this::run);
  }

  private void run() {
    long intervalNanos = interval.toNanos();
    long next = System.nanoTime();
    int consecutiveFailures = 0;
    Instant failingSince = null;
    boolean warned = false;
    while (!stopped) {
      if (!sleepUntil(next)) {
        break;
      }
      Duration timeout = answeredOnce ? requestTimeout : firstRequestTimeout;
      ImdsResult<ScheduledEventsDocument> result = client.scheduledEvents(timeout);
      Instant at = clock.instant();
      if (result instanceof ImdsResult.Ok<ScheduledEventsDocument> ok) {
        answeredOnce = true;
        if (consecutiveFailures > 0) {
          LOG.info("IMDS answers again after {} failed polls", consecutiveFailures);
        }
        consecutiveFailures = 0;
        failingSince = null;
        warned = false;
        stats.success(at, ok.value().incarnation(), ok.latency());
        try {
          handler.onDocument(ok.value(), at);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        } catch (RuntimeException e) {
          // A bug or a state write failure: do not die, do not commit; the next poll retries.
          LOG.error("handling IMDS document {} failed; will retry", ok.value().incarnation(), e);
        }
        next += intervalNanos;
        long now = System.nanoTime();
        if (next < now) {
          next = now + Math.floorMod(next - now, intervalNanos);
        }
      } else if (result instanceof ImdsResult.Failed<ScheduledEventsDocument> failed) {
        ImdsFailure f = failed.failure();
        stats.failure(f.kind());
        answeredOnce |= f.httpStatus() > 0;
        consecutiveFailures++;
        if (failingSince == null) {
          failingSince = at;
        }
        long waitMillis = waitAfter(f, consecutiveFailures);
        if (f.kind() == ImdsFailure.Kind.BAD_REQUEST) {
          if (consecutiveFailures == 1 || consecutiveFailures % 10 == 0) {
            LOG.error(
                "IMDS refused our request as malformed ({}); this is a bug in sebridge or its"
                    + " configuration (imds.api-version?). Polling every {}s until it is fixed",
                f,
                waitMillis / 1000);
          }
        } else if (!warned && Duration.between(failingSince, at).compareTo(WARN_AFTER) >= 0) {
          LOG.warn(
              "IMDS has been failing for {}s ({} polls), last: {}",
              Duration.between(failingSince, at).toSeconds(),
              consecutiveFailures,
              f);
          warned = true;
        } else {
          LOG.info("IMDS poll failed ({}), retrying in {}ms", f, waitMillis);
        }
        next = System.nanoTime() + waitMillis * 1_000_000L;
      }
    }
    LOG.debug("poller stopped");
  }

  long waitAfter(ImdsFailure f, int attempt) {
    return switch (f.kind()) {
      case BAD_REQUEST -> Math.max(maxBackoff.toMillis(), CoreKeys.BAD_REQUEST_PACE.toMillis());
      case THROTTLED -> throttledBackoff.apply(attempt);
      default -> backoff.apply(attempt);
    };
  }

  /** Sleeps until the monotonic time; false if stopped meanwhile. */
  private boolean sleepUntil(long deadlineNanos) {
    lock.lock();
    try {
      long remaining = deadlineNanos - System.nanoTime();
      while (!stopped && remaining > 0) {
        remaining = wake.awaitNanos(remaining);
      }
      return !stopped;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops polling and waits up to {@code timeout} for the document in hand; a poller still blocked
   * after that (publishing to a full disk, say) is interrupted: nothing was committed, and the next
   * run publishes the same envelopes again.
   */
  void stop(Duration timeout) {
    stopped = true;
    lock.lock();
    try {
      wake.signalAll();
    } finally {
      lock.unlock();
    }
    if (thread == null) {
      return;
    }
    try {
      thread.join(Math.max(1, timeout.toMillis())); // join(0) would wait for ever
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(1000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
