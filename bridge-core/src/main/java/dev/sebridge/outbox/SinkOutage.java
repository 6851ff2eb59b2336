package dev.sebridge.outbox;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the log says about a sink that fails: nothing while retries may still heal it; one WARN when
 * it has been failing for {@code publish.warn-after} (30 s by default), or at once for a failure
 * that will not heal by itself; one INFO when it delivers again, with how long the outage lasted
 * and how many envelopes waited. Retries in between log at DEBUG only, so a long broker outage
 * costs two lines, not one per attempt.
 */
final class SinkOutage {
  private static final Logger LOG = LoggerFactory.getLogger(SinkWorker.class);

  private final String sink;
  private final Duration warnAfter;
  private Instant since;
  private long waitingAtStart;
  private boolean warned;
  private String lastFailure;

  SinkOutage(String sink, Duration warnAfter) {
    this.sink = sink;
    this.warnAfter = warnAfter;
  }

  /**
   * An attempt that began at {@code attemptStart} failed; {@code waiting} envelopes are not
   * delivered to this sink. The outage is counted from the start of its first failed attempt.
   */
  void failed(
      Instant attemptStart, Instant now, Throwable failure, long waiting, boolean willHeal) {
    if (since == null) {
      since = attemptStart;
      waitingAtStart = waiting;
    }
    lastFailure = failure.toString();
    LOG.debug("sink {} failed: {}", sink, lastFailure);
    if (!willHeal) {
      warn(now, waiting);
    } else {
      check(now, waiting);
    }
  }

  /** Logs the WARN if the outage has lasted long enough (also between attempts). */
  void check(Instant now, long waiting) {
    if (since != null && !Duration.between(since, now).minus(warnAfter).isNegative()) {
      warn(now, waiting);
    }
  }

  private void warn(Instant now, long waiting) {
    if (!warned) {
      warned = true;
      LOG.warn(
          "sink {} has been failing for {} s; {} envelopes wait in the outbox and are retried: {}",
          sink,
          Duration.between(since, now).toSeconds(),
          waiting,
          lastFailure);
    }
  }

  /** How long until the WARN is due: the worker tries again no later than that. */
  Duration untilWarn(Instant now) {
    if (since == null || warned) {
      return Duration.ofDays(1);
    }
    Duration left = warnAfter.minus(Duration.between(since, now));
    return left.isNegative() ? Duration.ZERO : left;
  }

  /** A delivery went through. */
  void delivered(Instant now, long waited) {
    if (since != null && warned) {
      LOG.info(
          "sink {} delivers again after an outage of {} s; {} envelopes had waited",
          sink,
          Duration.between(since, now).toSeconds(),
          Math.max(waited, waitingAtStart));
    }
    since = null;
    warned = false;
  }

  boolean warned() {
    return warned;
  }
}
