package dev.sebridge.state;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Named points between two durable writes where a crash must lose nothing: the crash-point campaign
 * ({@code CrashPointCampaignTest}) kills the agent at each of them and checks what survives.
 *
 * <p>Off unless asked for. A process started with {@code -Dsebridge.test.crash-at=NAME} (or {@code
 * NAME#N}, the N-th time the point is reached) halts at that point as abruptly as {@code kill -9}:
 * no shutdown hook, no flush, exit code {@value #EXIT_CODE}. In-process tests use {@link
 * #throwing}, which throws {@link SimulatedCrash} instead.
 */
public final class CrashPoints {
  public static final String PROPERTY = "sebridge.test.crash-at";
  public static final int EXIT_CODE = 137;

  // The points, in the order data crosses them.
  public static final String PIPELINE_AFTER_OBSERVE = "pipeline.after-observe";
  public static final String PIPELINE_AFTER_STAGE = "pipeline.after-stage";
  public static final String PIPELINE_AFTER_PUBLISH = "pipeline.after-publish";
  public static final String OUTBOX_PARTIAL_APPEND = "outbox.partial-append";
  public static final String SINK_AFTER_EXPORT = "sink.after-export";
  public static final String PUMP_AFTER_PENDING = "pump.after-pending";
  public static final String PUMP_AFTER_POST = "pump.after-post";
  public static final String PUMP_AFTER_JOURNAL = "pump.after-journal";
  public static final String PUMP_AFTER_RESULT_DURABLE = "pump.after-result-durable";
  public static final String PUMP_AFTER_DONE = "pump.after-done";

  /** A poison record's result and the position after it are durable; the marker is not. */
  public static final String PUMP_AFTER_POISON_RESULT = "pump.after-poison-result";

  public static final String POLICY_AFTER_POST = "policy.after-post";

  /** The fleet service: an approval request's commands are sent, not yet committed. */
  public static final String FLEET_REQUEST_SENT = "fleet.request-sent";

  /** Fleet service: a rollout step forwarded its approval requests, not committed yet. */
  public static final String FLEET_ROLLOUT_RELEASED = "fleet.rollout-released";

  /**
   * With several processes sharing work (fleet service instances), the one that reaches the point
   * first crashes and the others go on: the first creates this file, and only its creator halts.
   */
  public static final String ONCE_FILE_PROPERTY = "sebridge.test.crash-once-file";

  private static final CrashPoints NONE = new CrashPoints(null, 0, false);

  private final String point;
  private final int nth;
  private final boolean halt;
  private final AtomicInteger reached = new AtomicInteger();

  private CrashPoints(String point, int nth, boolean halt) {
    this.point = point;
    this.nth = nth;
    this.halt = halt;
  }

  /** No crash anywhere (production). */
  public static CrashPoints none() {
    return NONE;
  }

  /** From {@value #PROPERTY}: halts the process at the named point; none when unset. */
  public static CrashPoints fromSystemProperties() {
    String spec = System.getProperty(PROPERTY);
    if (spec == null || spec.isBlank()) {
      return NONE;
    }
    int hash = spec.indexOf('#');
    return hash < 0
        ? new CrashPoints(spec.trim(), 1, true)
        : new CrashPoints(
            spec.substring(0, hash).trim(), Integer.parseInt(spec.substring(hash + 1)), true);
  }

  /** Throws {@link SimulatedCrash} the first time {@code point} is reached (in-process tests). */
  public static CrashPoints throwing(String point) {
    return new CrashPoints(Objects.requireNonNull(point), 1, false);
  }

  /** True when a crash is planned at {@code name} and this is the time it happens. */
  public boolean at(String name) {
    return point != null && point.equals(name) && reached.incrementAndGet() == nth;
  }

  /** Crashes here if this is the planned point. */
  public void reach(String name) {
    if (at(name) && firstOfAll()) {
      crash(name);
    }
  }

  private boolean firstOfAll() {
    String once = halt ? System.getProperty(ONCE_FILE_PROPERTY) : null;
    if (once == null) {
      return true;
    }
    try {
      java.nio.file.Files.createFile(java.nio.file.Path.of(once));
      return true;
    } catch (java.io.IOException anotherProcessCrashedFirst) {
      return false;
    }
  }

  /** Crashes now: halts the process, or throws in an in-process test. */
  public void crash(String name) {
    if (halt) {
      System.err.println("sebridge: crash point " + name + " reached: halting");
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_CODE);
    }
    throw new SimulatedCrash(name);
  }

  /**
   * An in-process stand-in for {@code kill -9}: an Error, so no {@code catch (Exception)} hides it.
   */
  public static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    public SimulatedCrash(String point) {
      super("simulated crash at " + point);
    }
  }
}
