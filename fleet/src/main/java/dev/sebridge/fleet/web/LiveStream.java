package dev.sebridge.fleet.web;

import com.sun.net.httpserver.HttpExchange;
import dev.sebridge.fleet.ViewChanges;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * The page's Server-Sent Events: an {@code event: changed} whenever this instance's views change
 * (changes that come while one is written are sent as one), a comment every 15 s to keep proxies
 * from closing an idle stream. At most {@code maxStreams} at once; more get 503 and htmx retries.
 */
public final class LiveStream {
  private final ViewChanges changes;
  private final Semaphore streams;
  private volatile boolean closed;

  public LiveStream(ViewChanges changes, int maxStreams) {
    this.changes = changes;
    this.streams = new Semaphore(maxStreams);
  }

  void serve(HttpExchange ex) throws IOException {
    if (!streams.tryAcquire()) {
      FleetPage.html(ex, 503, "too many live pages");
      return;
    }
    try {
      ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
      ex.getResponseHeaders().set("Cache-Control", "no-store");
      ex.getResponseHeaders().set("X-Accel-Buffering", "no");
      ex.sendResponseHeaders(200, 0);
      OutputStream out = ex.getResponseBody();
      long seen = changes.version();
      write(out, "retry: 2000\nevent: changed\ndata: " + seen + "\n\n");
      while (!closed) {
        long now = changes.awaitAfter(seen, Duration.ofSeconds(15));
        write(out, now > seen ? "event: changed\ndata: " + now + "\n\n" : ": still here\n\n");
        seen = now;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      streams.release();
    }
  }

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** Ends every stream at its next change or keep-alive. */
  public void close() {
    closed = true;
  }
}
