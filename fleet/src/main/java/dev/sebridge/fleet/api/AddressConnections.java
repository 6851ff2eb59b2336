package dev.sebridge.fleet.api;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections one client address may hold open at once ({@link #most}, an IPv6 client's /64 as one
 * address; a trusted proxy exempt): past it, a new connection of that address is closed as it
 * opens. The server's own cap ({@code fleet.http.max-connections}) is for all clients together, and
 * Jetty has no deadline for a request's headers: one client dripping a header byte now and then on
 * each of thousands of connections held them all, and the health probes with them.
 *
 * <p>Each connection's address is taken when it opens and kept with it (a closed socket no longer
 * tells its peer's address). Retention: an entry per open connection, and one per address with a
 * connection open, both dropped with the connection; for the log, at most {@link #NAMED} addresses'
 * counts, cleared with each line.
 *
 * <p>What it closes is logged at INFO, a line at most every {@link #LOG_EVERY} with how many it
 * closed since the last: a client that finds its connections closed (or a load balancer missing
 * from {@code fleet.http.trusted-proxies}) shows in the log, and a client opening thousands a
 * second does not fill it.
 */
final class AddressConnections implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(AddressConnections.class);

  private final int most;
  private final Set<String> trustedProxies;
  private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Connection, String> counted = new ConcurrentHashMap<>();

  /** The shortest time between two lines about closed connections. */
  static final Duration LOG_EVERY = Duration.ofSeconds(10);

  private final LongSupplier nanos;
  private final BiConsumer<Runnable, Duration> later;
  // guarded by this: how many of each address since the last line, at most NAMED addresses
  private final Map<String, Long> byAddress = new LinkedHashMap<>();
  private long others; // guarded by this: those of addresses past NAMED

  /** The most addresses a line names (the others are counted together). */
  static final int NAMED = 10;

  private long lastLine; // guarded by this; nanos (at the start, as if LOG_EVERY ago)
  private boolean lineDue; // guarded by this: a line is scheduled for those not written yet

  /**
   * @param later runs a task once after a delay (the connector's scheduler): the line for the
   *     connections closed within {@link #LOG_EVERY} of the last
   */
  AddressConnections(int most, Set<String> trustedProxies, BiConsumer<Runnable, Duration> later) {
    this(most, trustedProxies, System::nanoTime, later);
  }

  AddressConnections(
      int most,
      Set<String> trustedProxies,
      LongSupplier nanos,
      BiConsumer<Runnable, Duration> later) {
    this.most = most;
    this.nanos = nanos;
    this.later = later;
    this.lastLine = nanos.getAsLong() - LOG_EVERY.toNanos(); // the first closure is said at once
    this.trustedProxies = HttpLimits.canonical(trustedProxies);
  }

  /** A sixteenth of the server's cap, at least 4. */
  static int of(int maxConnections) {
    return Math.max(4, maxConnections / 16);
  }

  @Override
  public void onOpened(Connection connection) {
    String key = key(connection);
    if (key == null) {
      return;
    }
    counted.put(connection, key);
    int n = open.merge(key, 1, Integer::sum);
    if (n > most) {
      connection.getEndPoint().close();
      closed(key);
    }
  }

  /**
   * Counts a connection closed as it opened; writes the line now when none was written within
   * {@link #LOG_EVERY}, or else once that is over.
   */
  private synchronized void closed(String key) {
    if (byAddress.containsKey(key) || byAddress.size() < NAMED) {
      byAddress.merge(key, 1L, Long::sum);
    } else {
      others++;
    }
    long now = nanos.getAsLong();
    long since = now - lastLine;
    if (since >= LOG_EVERY.toNanos()) {
      line(now);
    } else if (!lineDue) {
      lineDue = true;
      later.accept(this::due, Duration.ofNanos(LOG_EVERY.toNanos() - since));
    }
  }

  /** The scheduled line: those closed since the last one. */
  synchronized void due() {
    lineDue = false;
    if (!byAddress.isEmpty()) { // (an address is named whenever one was closed)
      line(nanos.getAsLong());
    }
  }

  private void line(long now) {
    LOG.info(
        "closed {} new connection(s) as they opened, by address {}{}: one address holds at most"
            + " {} at once (a sixteenth of fleet.http.max-connections; a load balancer's address"
            + " belongs in fleet.http.trusted-proxies)",
        others + byAddress.values().stream().mapToLong(Long::longValue).sum(),
        byAddress,
        others == 0 ? "" : " and " + others + " of other addresses",
        most);
    byAddress.clear();
    others = 0;
    lastLine = now;
  }

  @Override
  public void onClosed(Connection connection) {
    String key = counted.remove(connection);
    if (key != null) {
      open.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Addresses with a connection open (for the retention test). */
  int addresses() {
    return open.size();
  }

  /** The address a connection counts against; null when it is not limited. */
  private String key(Connection connection) {
    SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
    if (!(remote instanceof InetSocketAddress a) || a.getAddress() == null) {
      return null;
    }
    String address = a.getAddress().getHostAddress();
    return trustedProxies.contains(HttpCall.canonical(address)) ? null : HttpCall.rateKey(address);
  }
}
