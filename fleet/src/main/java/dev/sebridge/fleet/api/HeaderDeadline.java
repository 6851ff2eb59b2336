package dev.sebridge.fleet.api;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request's headers must all come within {@code deadline} of the connection waiting for them
 * (Jetty has none: its idle timeout is reset by every byte, so a client dripping a header byte now
 * and then held a connection for as long as 16 KiB of headers took, hours). Every {@link #EVERY},
 * each HTTP/1.1 connection with no request in progress is looked at: one whose next request's first
 * bytes came longer than the deadline ago, and that request's headers not complete, is closed
 * unanswered. A connection that sends nothing is the idle timeout's; a request in progress (its
 * body, its answer, a live stream) is not this check's.
 *
 * <p>Retention: one entry per open connection that was waiting at a look, dropped at the first look
 * after the connection closed.
 */
final class HeaderDeadline implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);

  /** How often the connections are looked at. */
  static final Duration EVERY = Duration.ofMillis(500);

  /** The longest a request's headers may take, whatever the idle timeout. */
  static final Duration AT_MOST = Duration.ofSeconds(20);

  /**
   * A connection waiting for a request's headers.
   *
   * @param requests its complete requests when it began waiting
   * @param bytes the bytes it had received then
   * @param since when the first bytes of the next request were seen (nanoseconds), or {@link
   *     #NOT_YET}: a connection that sends nothing is the idle timeout's
   */
  private record Waiting(long requests, long bytes, long since) {}

  private static final long NOT_YET = Long.MIN_VALUE;

  private final AbstractConnector connector;
  private volatile long deadlineNanos;
  private final Map<Connection, Waiting> waiting = new ConcurrentHashMap<>();
  private volatile Scheduler.Task next;
  private volatile boolean closed;

  /** The headers' deadline for a server of this idle timeout: the shorter of it and 20 s. */
  static Duration of(Duration idleTimeout) {
    return idleTimeout.compareTo(AT_MOST) < 0 ? idleTimeout : AT_MOST;
  }

  HeaderDeadline(AbstractConnector connector, Duration deadline) {
    this.connector = connector;
    this.deadlineNanos = deadline.toNanos();
  }

  /** Another deadline (the test's, shorter than its server's idle timeout). */
  void deadline(Duration d) {
    this.deadlineNanos = d.toNanos();
  }

  /** Starts looking (the connector started: its scheduler runs). */
  void start() {
    schedule();
  }

  private void schedule() {
    if (!closed) {
      next = connector.getScheduler().schedule(this::look, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void look() {
    try {
      look(System.nanoTime());
    } catch (RuntimeException e) {
      LOG.warn("looking at the connections' headers failed", e);
    } finally {
      schedule();
    }
  }

  /** One look at every connection (the test calls it with its own time). */
  void look(long now) {
    Set<Connection> open = new HashSet<>();
    for (EndPoint ep : connector.getConnectedEndPoints()) {
      if (!(ep.getConnection() instanceof HttpConnection c)) {
        continue;
      }
      open.add(c);
      if (c.getHttpChannel().getRequest() != null) {
        waiting.remove(c); // a request in progress: its body and answer have their own bounds
        continue;
      }
      long requests = c.getMessagesIn();
      long bytes = c.getBytesIn();
      Waiting w = waiting.get(c);
      if (w == null || w.requests() != requests) {
        // Waiting from here: the next request's first bytes start its deadline (a new
        // connection's, any bytes at all).
        long before = w == null && requests == 0 ? 0 : bytes;
        waiting.put(c, new Waiting(requests, before, bytes > before ? now : NOT_YET));
      } else if (w.since() == NOT_YET) {
        if (bytes > w.bytes()) {
          waiting.put(c, new Waiting(requests, w.bytes(), now));
        }
      } else if (now - w.since() > deadlineNanos) {
        LOG.debug(
            "closing a connection of {}: part of a request's headers, and no more within {} ms",
            ep.getRemoteSocketAddress(),
            TimeUnit.NANOSECONDS.toMillis(deadlineNanos));
        waiting.remove(c);
        ep.close();
      }
    }
    waiting.keySet().retainAll(open);
  }

  /** Connections looked at as waiting (the retention test). */
  int watched() {
    return waiting.size();
  }

  @Override
  public void close() {
    closed = true;
    Scheduler.Task t = next;
    if (t != null) {
      t.cancel();
    }
    waiting.clear();
  }
}
