package dev.sebridge.agent;

import dev.sebridge.approval.ApprovalRecorder;
import dev.sebridge.approval.ApprovalService;
import dev.sebridge.command.CommandJournal;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.ReplayCache;
import dev.sebridge.command.TrustedKeys;
import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.CommandSourceProvider;
import dev.sebridge.spi.ReceivedCommand;
import dev.sebridge.spi.UnsafeSourceException;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command pump: one thread, the only path from the commands topic to {@code POST
 * StartRequests}. It reads batches from the command source and hands each to the {@link
 * CommandHandler}, which takes it through verification, approval and durable results in order.
 *
 * <p>If reading or handling fails, the source is closed and opened again at the committed position,
 * with exponential backoff and jitter (0.5 s to 30 s); meanwhile {@link #problems()} reports it, so
 * {@code /readyz} is not green while approvals by command do not work. A failure to read logs a
 * WARN once it has lasted {@value #WARN_AFTER_READ_FAILURES} attempts; a failure to handle, an
 * ERROR at once. A read or its handling that does not return at all is reported after {@link
 * #STUCK}.
 */
final class CommandPump implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommandPump.class);
  static final Duration POLL = Duration.ofMillis(500);
  static final int WARN_AFTER_READ_FAILURES = 3;

  /** An unsafe source (its configuration) is looked at again after this long. */
  static final Duration UNSAFE_RETRY = Duration.ofMinutes(5);

  /**
   * Opening, reading or closing the command source, or handling what it read, not returned after
   * this long is reported ({@link #problems()}): a read takes {@link #POLL} or its source's own
   * timeouts (Kafka's first, about 40 s: the topic checks; Event Hubs' about 40 s, a minute when it
   * skips a poison), handling a command seconds, up to about 30 s while IMDS is slow (its retries
   * at {@code imds.request-timeout}). Each command of a batch counts from its own start: a batch of
   * several approvals while IMDS is that slow is not reported. Measured on the agent's clock: a
   * jump shows early or late by as much.
   */
  static final Duration STUCK = Duration.ofMinutes(2);

  private final Function<String, CommandSource> sources;
  private final CompletableFuture<CommandHandler> handler;
  private final ReadingMarker marker;
  private final Clock clock;
  // When the read under way began, or the handling of the command under way; null between reads
  // (reported when it does not return).
  private volatile Instant readingSince;
  private final IntervalFunction backoff =
      IntervalFunction.ofExponentialRandomBackoff(
          Duration.ofMillis(500), 2.0, 0.5, Duration.ofSeconds(30));
  private final CountDownLatch closing = new CountDownLatch(1);
  private final AtomicLong handled = new AtomicLong();
  // The read position after the last read's records (the pump's thread only).
  private java.util.OptionalLong readTo = java.util.OptionalLong.empty();

  /** Not ready until the first read worked: approvals by command do not work before that. */
  private volatile String problem = "approval commands: not reading the command source yet";

  private Thread thread;

  /**
   * @param sources makes the command source for a vmId (again after each failure)
   * @param handler the handler, once the VM identity is known
   */
  CommandPump(
      Function<String, CommandSource> sources,
      CompletableFuture<CommandHandler> handler,
      ReadingMarker marker,
      Clock clock) {
    this.sources = sources;
    this.handler = handler;
    this.marker = marker;
    this.clock = clock;
  }

  /** The pump for a configured command source, with its durable state in {@code state.dir}. */
  static CommandPump create(
      AgentContext ctx,
      CommandSourceProvider provider,
      TrustedKeys keys,
      CompletableFuture<ApprovalService> approvals,
      ApprovalRecorder recorder) {
    CommandJournal journal = new CommandJournal(ctx.state(), provider.name());
    ReplayCache replay = new ReplayCache(ctx.state(), ctx.clock());
    return new CommandPump(
        vmId -> provider.create(ctx.config(), vmId),
        approvals.thenApply(
            service ->
                new CommandHandler(
                    ctx,
                    journal,
                    replay,
                    new CommandVerifier(keys, service.vm().vmId(), ctx.clock()),
                    service,
                    recorder,
                    service.vm())),
        new ReadingMarker(ctx.state(), provider.name()),
        ctx.clock());
  }

  void start() {
    thread = DaemonThreads.start("sebridge-commands", this::run);
  }

  /** Why approvals by command do not work right now; empty when they do. */
  List<String> problems() {
    String p = problem;
    if (p == null && thread != null && !thread.isAlive() && closing.getCount() > 0) {
      p = "approval commands: the command pump stopped";
    }
    Instant since = readingSince;
    if (p == null && since != null && clock.instant().isAfter(since.plus(STUCK))) {
      // A source that hangs, or a record whose handling never ends (and never kills the agent,
      // so it is never skipped): approvals by command wait behind it.
      p =
          "approval commands: opening or reading the command source, or handling what it read, has"
              + " not returned since "
              + since;
    }
    return p == null ? List.of() : List.of(p);
  }

  /** Commands handled (their results durable) since start. */
  long handled() {
    return handled.get();
  }

  /** How many records on from a death's position are read one at a time. */
  static final int CAREFUL_RECORDS = 500;

  private void run() {
    CommandHandler h;
    try {
      h = handler.get();
    } catch (InterruptedException | CancellationException | ExecutionException e) {
      return; // stopped before the identity was known
    }
    if (!dev.sebridge.command.CommandVerifier.warmUp()) {
      LOG.debug("the verifier's warm-up example did not verify");
    }
    int failures = 0;
    boolean started = false;
    java.util.OptionalLong poison = java.util.OptionalLong.empty();
    long carefulUntil = -1; // reading one record at a time until here
    reading:
    while (closing.getCount() > 0) {
      readingSince = clock.instant(); // opening the source may hang too
      try (CommandSource source = sources.apply(h.vm().vmId())) {
        if (!started) { // once per start; retried with the rest when the state cannot be written
          poison = marker.start();
          started = true;
          carefulUntil = PoisonRecords.careful(marker);
        }
        h.recover();
        if (carefulUntil >= 0) {
          source.readOneAtATime();
        }
        source.open(h.position());
        if (poison.isPresent()) {
          long at = poison.getAsLong();
          poison = java.util.OptionalLong.empty(); // once per start, whatever happens
          PoisonRecords.skip(marker, source, h, at);
        }
        LOG.info("reading approval commands from {} for vmId {}", source.name(), h.vm().vmId());
        while (closing.getCount() > 0) {
          readingSince = clock.instant();
          List<ReceivedCommand> batch = read(source);
          failures = 0;
          problem = null;
          if (batch.isEmpty()) {
            h.idle();
          } else {
            // Each command of the batch its own 2 minutes: several slow approvals move on.
            h.handle(batch, () -> readingSince = clock.instant());
            handled.addAndGet(batch.size());
          }
          if (!batch.isEmpty() && readTo.isPresent()) { // read and handled: a stop forgives
            marker.lived(readTo.getAsLong());
          }
          readingSince = null;
          if (carefulUntil >= 0 && marker.position() > carefulUntil) {
            LOG.info(
                "read past position {} alive: reading approval commands in batches again",
                carefulUntil);
            carefulUntil = -1;
            readingSince = clock.instant(); // closing the source may hang too
            continue reading; // the source is closed and opened again, at the committed position
          }
        }
        break;
      } catch (UnsafeSourceException e) {
        readingSince = null;
        failures++;
        problem = "approval commands are off: " + e.getMessage();
        if (failures == 1) {
          LOG.error("approval commands are off: {}", e.getMessage());
        }
        if (awaitClosing(UNSAFE_RETRY)) {
          break;
        }
        continue;
      } catch (SourceFailure e) {
        readingSince = null;
        failures++;
        problem = "approval commands: cannot read from the command source: " + e.getMessage();
        if (failures == WARN_AFTER_READ_FAILURES) {
          LOG.warn("cannot read approval commands ({} attempts): {}", failures, e.getMessage());
        } else {
          LOG.info("reading approval commands failed, retrying: {}", e.getMessage());
        }
      } catch (InterruptedException e) {
        break;
      } catch (RuntimeException e) {
        readingSince = null;
        failures++;
        problem = "approval commands: handling failed: " + e;
        if (failures == 1) {
          LOG.error("handling approval commands failed; retrying with backoff", e);
        }
      }
      if (awaitClosing(Duration.ofMillis(backoff.apply(Math.max(1, failures))))) {
        break;
      }
    }
    readingSince = null;
    marker.stopped();
  }

  private List<ReceivedCommand> read(CommandSource source) throws SourceFailure {
    readTo = java.util.OptionalLong.empty();
    try {
      java.util.OptionalLong next = source.readPosition();
      if (next.isPresent()) {
        marker.reading(next.getAsLong());
      }
      marker.polling(); // from here a death may be a record's doing
      List<ReceivedCommand> got = source.poll(POLL);
      if (!got.isEmpty()) {
        readTo = source.readPosition();
        marker.busy();
      } else if (next.isPresent()
          && !marker.isIdle() // (asked once: a source may ask its broker)
          && source.readPosition().equals(next) // nothing read, not even other VMs' records
          && source.atEnd()) {
        // Nothing there: the end of the stream, as far as it knows; nothing either where the
        // marker counts deaths, at or past it (a source that starts behind it, at the last
        // command of the VM's own, and finds the records since then gone: Event Hubs' retention).
        marker.idle(marker.position());
      }
      return got;
    } catch (UnsafeSourceException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new SourceFailure(e);
    }
  }

  private boolean awaitClosing(Duration d) {
    try {
      return closing.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /**
   * Stops reading; waits up to {@code timeout} for the batch in hand to finish, then interrupts.
   * The stop is clean whatever the pump's thread is stuck in: the marker says so from here.
   */
  void close(Duration timeout) {
    closing.countDown();
    handler.cancel(false);
    if (thread != null) {
      try {
        thread.join(Math.max(1, timeout.toMillis())); // join(0) would wait for ever
        if (thread.isAlive()) {
          thread.interrupt();
          thread.join(1000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      marker.stopped();
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /** The command source failed to read: retried, and a WARN only if it lasts. */
  private static final class SourceFailure extends Exception {
    private static final long serialVersionUID = 1L;

    SourceFailure(RuntimeException cause) {
      super(cause.toString(), cause);
    }
  }
}
