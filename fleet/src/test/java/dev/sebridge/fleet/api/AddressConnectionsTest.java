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

  /** The tasks the connections' scheduler holds (run by the test when their time comes). */
  private final List<Runnable> scheduled = new ArrayList<>();

  private final List<Duration> delays = new ArrayList<>();
  private final AddressConnections limit =
      new AddressConnections(
          2,
          Set.of(),
          now::get,
          (task, delay) -> {
            scheduled.add(task);
            delays.add(delay);
          });
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
   * Past its two, an address's new connections are closed as they open, and the log says so by
   * address: the first at once, then at most a line every ten seconds with those closed since,
   * written when the ten seconds are over even when no more come. Before, they were logged at DEBUG
   * only: a benchmark lost reads to this cap and nothing in the service's log said why.
   */
  @Test
  void closedConnectionsAreLoggedAtInfoAtMostEveryTenSeconds() {
    List<Connection> held = open("10.0.0.1", 2);
    assertThat(closedOf(held)).isZero();
    assertThat(closedOf(open("10.0.0.1", 1))).isEqualTo(1);
    assertThat(lines())
        .containsExactly("closed 1 new connection(s) as they opened, by address {10.0.0.1=1}");
    assertThat(scheduled).isEmpty();

    now.addAndGet(Duration.ofSeconds(4).toNanos());
    open("10.0.0.1", 500);
    open("10.0.0.9", 3); // another address: its own two, the third closed
    assertThat(lines()).as("none within ten seconds").hasSize(1);
    assertThat(scheduled).as("one line scheduled").hasSize(1);
    assertThat(delays).containsExactly(Duration.ofSeconds(6));

    now.addAndGet(Duration.ofSeconds(6).toNanos());
    scheduled.remove(0).run(); // no more closed meanwhile: written all the same
    assertThat(lines())
        .containsExactly(
            "closed 1 new connection(s) as they opened, by address {10.0.0.1=1}",
            "closed 501 new connection(s) as they opened, by address {10.0.0.1=500, 10.0.0.9=1}");

    now.addAndGet(Duration.ofSeconds(10).toNanos());
    open("10.0.0.1", 1); // ten seconds since the last line: written at once
    assertThat(lines()).hasSize(3);
    for (int i = 0; i < AddressConnections.NAMED + 2; i++) {
      open("10.1.0." + i, 3);
    }
    assertThat(lines()).hasSize(3);
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    scheduled.remove(0).run();
    assertThat(log.list.get(3).getFormattedMessage())
        .as("a line names ten addresses, however many there were")
        .contains("closed 12 new connection(s)")
        .contains("10.1.0.9=1")
        .doesNotContain("10.1.0.10=")
        .contains(" and 2 of other addresses:");
  }

  /** A connection closed frees its place; a trusted proxy is not counted. */
  @Test
  void aClosedConnectionFreesItsPlaceAndATrustedProxyIsNotCounted() {
    List<Connection> held = open("10.0.0.1", 2);
    limit.onClosed(held.get(0));
    assertThat(closedOf(open("10.0.0.1", 1))).isZero();
    assertThat(closedOf(open("10.0.0.1", 1))).isEqualTo(1);

    AddressConnections behindProxy =
        new AddressConnections(2, Set.of("10.0.0.5"), now::get, (task, delay) -> {});
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
