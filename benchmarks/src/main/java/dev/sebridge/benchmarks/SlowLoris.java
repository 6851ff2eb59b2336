package dev.sebridge.benchmarks;

import dev.sebridge.concurrent.DaemonThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Slow-loris connections, as issue 29 found them: each announces a 64 KiB {@code POST /ui/login}
 * body (with the form's cookie) and sends none of it. Once a second every connection the server
 * closed (or answered) is opened again, so {@code count} are held open all the time the attack
 * runs.
 */
final class SlowLoris implements AutoCloseable {
  private final byte[] headers;
  private final InetSocketAddress server;
  private final List<Socket> sockets = new ArrayList<>();
  private final AtomicInteger opened = new AtomicInteger();
  private final ScheduledExecutorService keeper =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("slow-loris"));

  private SlowLoris(URI url, int count, String loginCookie) {
    this.server = new InetSocketAddress(url.getHost(), url.getPort());
    this.headers =
        ("POST /ui/login HTTP/1.1\r\nHost: fleet\r\nCookie: "
                + loginCookie
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length:"
                + " 65536\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < count; i++) {
      sockets.add(null);
    }
  }

  /**
   * Opens {@code count} connections to the server at {@code url} and keeps them open; each carries
   * {@code loginCookie}, the sign-in form's cookie anyone can fetch, so the server waits for the
   * body instead of refusing the sign-in at once (the worst case).
   */
  static SlowLoris start(String url, int count, String loginCookie) {
    SlowLoris l = new SlowLoris(URI.create(url), count, loginCookie);
    l.keeper.scheduleWithFixedDelay(l::keep, 0, 1, TimeUnit.SECONDS);
    return l;
  }

  /** Connections opened so far, the first ones and every one opened again after the server. */
  int opened() {
    return opened.get();
  }

  private void keep() {
    for (int i = 0; i < sockets.size(); i++) {
      Socket s = sockets.get(i);
      if (s == null || closedByServer(s)) {
        close(s);
        sockets.set(i, open());
      }
    }
  }

  private Socket open() {
    try {
      Socket s = new Socket();
      if (server.getAddress() != null && server.getAddress().isLoopbackAddress()) {
        // An attacker is another client than the benchmark's readers: the server holds one
        // address to a sixteenth of its connections.
        s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
      }
      s.connect(server, 5_000);
      s.setSoTimeout(1);
      s.getOutputStream().write(headers);
      s.getOutputStream().flush();
      opened.incrementAndGet();
      return s;
    } catch (IOException e) {
      return null; // tried again in a second
    }
  }

  /** Whether the server answered or closed the connection (a read that does not time out). */
  private static boolean closedByServer(Socket s) {
    try {
      return s.getInputStream().read() >= -1;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private static void close(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // gone already
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    keeper.shutdownNow();
    keeper.awaitTermination(10, TimeUnit.SECONDS);
    sockets.forEach(SlowLoris::close);
  }
}
