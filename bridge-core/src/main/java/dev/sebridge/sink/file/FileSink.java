package dev.sebridge.sink.file;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.spi.SinkException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Appends envelopes to a file as JSON Lines (one envelope per line), fsynced per batch. A reader
 * can tail it; Log Analytics agents can collect it.
 *
 * <p>A line left unfinished by a crash or power loss in the middle of an append is cut off when the
 * file is opened again: that batch was never confirmed, so the outbox sends it again whole.
 */
public final class FileSink implements EventSink {
  private final Path path;
  private FileChannel channel;
  private boolean shutdown;

  public FileSink(Path path) {
    this.path = path;
  }

  @Override
  public String name() {
    return "file";
  }

  @Override
  public synchronized CompletableFuture<Void> export(List<Envelope> batch) {
    if (shutdown) {
      return CompletableFuture.failedFuture(new SinkException("file sink is shut down"));
    }
    try {
      FileChannel ch = channel();
      int size = 0;
      for (Envelope e : batch) {
        size += e.size() + 1;
      }
      ByteBuffer buf = ByteBuffer.allocate(size);
      for (Envelope e : batch) {
        buf.put(e.body()).put((byte) '\n');
      }
      buf.flip();
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
      return CompletableFuture.completedFuture(null);
    } catch (IOException e) {
      closeQuietly();
      return CompletableFuture.failedFuture(
          new RetriableSinkException("cannot append to " + path + ": " + e.getMessage(), e));
    }
  }

  private FileChannel channel() throws IOException {
    if (channel == null || !channel.isOpen()) {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      cutUnfinishedLine();
      channel =
          FileChannel.open(
              path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }
    return channel;
  }

  private void cutUnfinishedLine() throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long end = ch.size();
      ByteBuffer one = ByteBuffer.allocate(1);
      long keep = end;
      while (keep > 0) {
        one.clear();
        ch.read(one, keep - 1);
        if (one.get(0) == '\n') {
          break;
        }
        keep--;
      }
      if (keep < end) {
        ch.truncate(keep);
        ch.force(true);
      }
    }
  }

  @Override
  public CompletableFuture<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletableFuture<Void> shutdown() {
    shutdown = true;
    closeQuietly();
    return CompletableFuture.completedFuture(null);
  }

  private void closeQuietly() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // reopened on the next export
      }
      channel = null;
    }
  }
}
