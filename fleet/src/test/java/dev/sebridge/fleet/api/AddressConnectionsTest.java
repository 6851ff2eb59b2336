package dev.sebridge.fleet.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.eclipse.jetty.io.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The connections one address may hold, and what is said of those closed, with an injected clock
 * (the real sockets' side is {@code FleetServerLimitsTest}).
 */
class AddressConnectionsTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final AddressConnections limit = new AddressConnections(2, Set.of(), now::get);
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(AddressConnections.class);

  @BeforeEach
  void listen() {
    log.start();
    logger.addAppender(log);
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(log);
  }

  /**
   * Past its two, an address's new connections are closed as they open, and the log says so: the
   * first at once, then at most a line every ten seconds with how many were closed since the last,
   * whatever the number. Before, they were logged at DEBUG only: a benchmark lost reads to this cap
   * and nothing in the service's log said why.
   */
  @Test
  void closedConnectionsAreLoggedAtInfoAtMostEveryTenSeconds() {
    List<Connection> held = open("10.0.0.1", 2);
    assertThat(closedOf(held)).isZero();
    List<Connection> refused = open("10.0.0.1", 1);
    assertThat(closedOf(refused)).isEqualTo(1);
    assertThat(lines())
        .containsExactly("closed 1 new connection(s) as they opened, the last of 10.0.0.1");

    open("10.0.0.1", 500);
    now.addAndGet(AddressConnections.LOG_EVERY.minus(Duration.ofMillis(1)).toNanos());
    open("10.0.0.1", 1);
    assertThat(lines()).as("no second line within ten seconds").hasSize(1);

    now.addAndGet(Duration.ofMillis(1).toNanos());
    open("10.0.0.9", 3); // another address: its own two, the third closed
    assertThat(lines())
        .containsExactly(
            "closed 1 new connection(s) as they opened, the last of 10.0.0.1",
            "closed 502 new connection(s) as they opened, the last of 10.0.0.9");
  }

  /** A connection closed frees its place; a trusted proxy is not counted. */
  @Test
  void aClosedConnectionFreesItsPlaceAndATrustedProxyIsNotCounted() {
    List<Connection> held = open("10.0.0.1", 2);
    limit.onClosed(held.get(0));
    assertThat(closedOf(open("10.0.0.1", 1))).isZero();
    assertThat(closedOf(open("10.0.0.1", 1))).isEqualTo(1);

    AddressConnections behindProxy = new AddressConnections(2, Set.of("10.0.0.5"), now::get);
    List<Connection> proxied = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Connection c = connection("10.0.0.5");
      behindProxy.onOpened(c);
      proxied.add(c);
    }
    assertThat(closedOf(proxied)).isZero();
    assertThat(behindProxy.addresses()).isZero();
    assertThat(lines()).hasSize(1);
  }

  private List<Connection> open(String address, int n) {
    List<Connection> opened = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Connection c = connection(address);
      limit.onOpened(c);
      opened.add(c);
    }
    return opened;
  }

  private static long closedOf(List<Connection> connections) {
    return connections.stream().filter(c -> !c.getEndPoint().isOpen()).count();
  }

  /** The log's lines, up to their first colon. */
  private List<String> lines() {
    return log.list.stream().map(e -> e.getFormattedMessage().split(":")[0]).toList();
  }

  private static Connection connection(String address) {
    return new AbstractConnection(new Peer(address), Runnable::run) {
      @Override
      public void onFillable() {}
    };
  }

  /** An end point that says it is connected from {@code address}. */
  private static final class Peer extends ByteArrayEndPoint {
    private final InetSocketAddress remote;

    Peer(String address) {
      this.remote = new InetSocketAddress(address, 40_000);
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
      return remote;
    }
  }
}
