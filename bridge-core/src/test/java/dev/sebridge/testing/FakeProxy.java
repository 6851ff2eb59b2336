package dev.sebridge.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A "proxy" on loopback that counts connections and answers none of them usefully: anything that
 * goes through it fails, and {@link #connections()} shows it was tried.
 */
public final class FakeProxy implements AutoCloseable {
  private final ServerSocket server;
  private final AtomicInteger connections = new AtomicInteger();
  private final Thread acceptor;

  public FakeProxy() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                  connections.incrementAndGet();
                  s.getOutputStream()
                      .write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".getBytes());
                } catch (IOException e) {
                  // closed
                }
              }
            },
            "fake-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  public String url() {
    return "http://127.0.0.1:" + port();
  }

  public int connections() {
    return connections.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
