package dev.sebridge.sink.stdout;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Writes envelopes to standard output, one JSON object per line. Logs go to standard error. */
public final class StdoutSink implements EventSink {
  private final PrintStream out;
  private volatile boolean shutdown;

  public StdoutSink(PrintStream out) {
    this.out = out;
  }

  @Override
  public String name() {
    return "stdout";
  }

  @Override
  public CompletableFuture<Void> export(List<Envelope> batch) {
    if (shutdown) {
      return CompletableFuture.failedFuture(new SinkException("stdout sink is shut down"));
    }
    synchronized (out) {
      for (Envelope e : batch) {
        out.write(e.body(), 0, e.size());
        out.write('\n');
      }
      out.flush();
      if (out.checkError()) {
        return CompletableFuture.failedFuture(
            new RetriableSinkException("standard output is closed or failing"));
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> flush() {
    out.flush();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    shutdown = true;
    out.flush();
    return CompletableFuture.completedFuture(null);
  }
}
