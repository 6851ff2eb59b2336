package dev.sebridge.app;

import dev.sebridge.config.ConfigKey;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.EventSinkProvider;
import dev.sebridge.spi.SinkContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A sink for tests whose shutdown takes {@link #SHUTDOWN_MILLIS} and then writes the file named by
 * the system property {@code sebridge.test.shutdown-marker}: proof that the process waited for it.
 */
public final class SlowShutdownSinkProvider implements EventSinkProvider {
  static final String NAME = "test-slow-shutdown";
  static final long SHUTDOWN_MILLIS = 1500;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ConfigKey<?>> configKeys() {
    return List.of();
  }

  @Override
  public EventSink create(SinkContext context) {
    Path marker = Path.of(System.getProperty("sebridge.test.shutdown-marker", "shutdown-marker"));
    return new EventSink() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public CompletableFuture<Void> export(List<Envelope> batch) {
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public CompletableFuture<Void> flush() {
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public CompletableFuture<Void> shutdown() {
        try {
          Thread.sleep(SHUTDOWN_MILLIS);
          Files.writeString(marker, "shut down");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return CompletableFuture.completedFuture(null);
      }
    };
  }
}
