package dev.sebridge.fleet.api;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an admitted request's body without holding a thread, at most {@link FleetServer#MAX_BODY}
 * and within {@link #deadline}. Jetty's idle timeout alone is reset by every byte: a body dripped
 * in a byte every few seconds held its connection for as long as its declared length took, a day
 * for 64 KiB. When the server stops, the bodies still coming are answered 503 at once ({@link
 * #stop}): a drip-fed body does not hold the stop until its deadline.
 */
final class BodyReader {
  private static final Logger LOG = LoggerFactory.getLogger(BodyReader.class);

  private static final String TOO_LATE = "the body did not come in time";

  /** What decided a read: the body, its deadline, or the server stopping. */
  private enum Decision {
    TAKEN,
    LATE,
    STOPPING
  }

  private final Duration grace;

  /** For each body being read, what fails it as the server stops. */
  private final Set<Runnable> pending = ConcurrentHashMap.newKeySet();

  private volatile boolean stopping;

  /**
   * @param grace the idle timeout: what any body gets, beside its length's share
   */
  BodyReader(Duration grace) {
    this.grace = grace;
  }

  /**
   * How long a body may take: the idle timeout, and a second more per {@link
   * JettyServer#MIN_BODY_RATE} bytes of its declared length ({@link FleetServer#MAX_BODY} when sent
   * in chunks).
   */
  static Duration deadline(Duration grace, long declaredLength) {
    long length =
        declaredLength < 0 ? FleetServer.MAX_BODY : Math.min(declaredLength, FleetServer.MAX_BODY);
    return grace.plusMillis(length * 1000 / JettyServer.MIN_BODY_RATE);
  }

  /**
   * Reads the body into the call, then {@code then}; or answers why it could not through {@code
   * refuse} (408 past the deadline, 413 past the size, Jetty's own code, else 400).
   */
  void read(HttpCall call, Consumer<HttpCall> then, BiConsumer<HttpCall, ApiException> refuse) {
    // At the deadline (or as the server stops) the request's content fails, in Jetty's own order:
    // the pending read wakes with the failure, and the refusal is answered from its completion
    // (failing only our future, the 408 was written while Jetty still read the body, on another
    // thread). Whichever comes first, the body, its deadline or the stop, decides: a body that came
    // as the deadline passed is answered 408 from its completion, not dispatched.
    AtomicReference<Decision> decided = new AtomicReference<>();
    Scheduler.Task deadline =
        call.request()
            .getComponents()
            .getScheduler()
            .schedule(
                () -> {
                  if (decided.compareAndSet(null, Decision.LATE)) {
                    call.request().fail(new TimeoutException(TOO_LATE));
                  }
                },
                deadline(grace, call.declaredLength()).toMillis(),
                TimeUnit.MILLISECONDS);
    Runnable stop =
        () -> {
          if (decided.compareAndSet(null, Decision.STOPPING)) {
            call.request().fail(new CancellationException(JettyServer.STOPPING));
          }
        };
    pending.add(stop);
    if (stopping) {
      stop.run(); // begun as the server stopped: stop() may have gone past it
    }
    Content.Source.asByteArrayAsync(call.request(), FleetServer.MAX_BODY)
        .whenComplete(
            (bytes, failure) -> {
              pending.remove(stop);
              deadline.cancel();
              boolean inTime = decided.compareAndSet(null, Decision.TAKEN);
              if (failure == null && inTime) {
                call.body(bytes);
                then.accept(call);
                return;
              }
              LOG.debug(
                  "{} {}: reading the body failed: {}",
                  call.rawMethod(),
                  call.rawPath(),
                  String.valueOf(failure));
              if (decided.get() == Decision.STOPPING) {
                call.header("Retry-After", "1");
                refuse.accept(call, new ApiException(503, JettyServer.STOPPING));
              } else {
                refuse.accept(call, refusal(!inTime, failure));
              }
            });
  }

  /** The server stops: every body still being read is refused (503), and any read begun later. */
  void stop() {
    stopping = true;
    pending.forEach(Runnable::run);
  }

  /** Bodies being read (tests). */
  int pending() {
    return pending.size();
  }

  /**
   * Why a body was not taken.
   *
   * @param late the deadline came first: 408, whatever failure the read then reports (Jetty may
   *     report the failed request as another exception; a CI run answered such a body 400 at its
   *     deadline)
   * @param failure how the read failed (null: it did not)
   */
  static ApiException refusal(boolean late, Throwable failure) {
    Throwable cause =
        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (late || cause == null || timedOut(cause)) {
      // (the connection closes once the answer is sent: HttpCall.send, a body not read whole)
      return new ApiException(408, TOO_LATE);
    } else if (cause instanceof org.eclipse.jetty.http.HttpException h) {
      return new ApiException(h.getCode(), "the body could not be read: " + h.getReason());
    } else if (cause instanceof IllegalStateException
        && String.valueOf(cause.getMessage()).startsWith("Max size")) {
      return new ApiException(413, "a body of at most " + FleetServer.MAX_BODY + " bytes");
    }
    return new ApiException(400, "the body could not be read");
  }

  /** A timeout anywhere in the failure's causes (Jetty's idle timeout, or the deadline's). */
  private static boolean timedOut(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }
}
