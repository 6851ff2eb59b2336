package dev.sebridge.fleet.api;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * connection open, both dropped with the connection.
 */
final class AddressConnections implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(AddressConnections.class);

  private final int most;
  private final Set<String> trustedProxies;
  private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Connection, String> counted = new ConcurrentHashMap<>();

  AddressConnections(int most, Set<String> trustedProxies) {
    this.most = most;
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
      LOG.debug("closing a connection of {}: it holds {} already", key, most);
      connection.getEndPoint().close();
    }
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
