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
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends envelopes to a file as JSON Lines (one envelope per line), fsynced per batch. A reader
 * can tail it; Log Analytics agents can collect it.
 *
 * <p>A line left unfinished by a crash or power loss in the middle of an append is cut off when the
 * file is opened again: that batch was never confirmed, so the outbox sends it again whole.
 *
 * <p>Retention: a batch that would take the file past {@code maxBytes} first rotates it ({@code
 * path} to {@code path.1}, {@code path.1} to {@code path.2}, ..., the oldest of {@code keep}
 * deleted), so the sink holds at most about {@code (keep + 1) * maxBytes}. A batch is never split:
 * a file holds whole lines, one batch larger than {@code maxBytes} a file of its own. A rotation
 * that fails leaves the file as it is (appended to, tried again at the next batch). Rotated outside
 * (logrotate), the file must be copied and truncated ({@code copytruncate}, which loses to the copy
 * what is appended between its copy and its truncation): the sink keeps writing to the file it
 * opened.
 */
public final class FileSink implements EventSink {
  private static final Logger LOG = LoggerFactory.getLogger(FileSink.class);

  /** {@code sink.file.max-bytes} by default. */
  public static final long MAX_BYTES = 16L * 1024 * 1024;

  /** {@code sink.file.keep} by default. */
  public static final int KEEP = 2;

  private final Path path;
  private final long maxBytes;
  private final int keep;
  private FileChannel channel;
  private boolean shutdown;
  private boolean rotationFailing;

  public FileSink(Path path) {
    this(path, MAX_BYTES, KEEP);
  }

  /**
   * @param maxBytes the size past which the file is rotated before the next batch
   * @param keep how many rotated files are kept ({@code path.1} the newest)
   */
  public FileSink(Path path, long maxBytes, int keep) {
    this.path = path;
    this.maxBytes = maxBytes;
    this.keep = keep;
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
      int size = 0;
      for (Envelope e : batch) {
        size += e.size() + 1;
      }
      FileChannel ch = channel();
      if (ch.size() > 0 && ch.size() + size > maxBytes) {
        ch = rotateOrKeep();
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
      boolean created = !Files.exists(path);
      channel =
          FileChannel.open(
              path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      if (created) {
        syncDirectory(parent);
      }
    }
    return channel;
  }

  /**
   * The channel of a new file once the full one is rotated; the full one's when it cannot be (a
   * reader holding it on Windows, a permission): a rotation is tried again at the next batch and
   * never fails an export, which would hold every sink's envelopes in the outbox.
   */
  private FileChannel rotateOrKeep() throws IOException {
    closeQuietly();
    try {
      rotate();
      rotationFailing = false;
    } catch (IOException e) {
      if (!rotationFailing) {
        LOG.warn(
            "file sink: cannot rotate {} ({}); appending to it meanwhile, tried again at each batch",
            path,
            e.toString());
        rotationFailing = true;
      }
    }
    return channel();
  }

  /**
   * The file becomes {@code path.1}, each older one moves up, the oldest past {@code keep} goes.
   * Only the files from {@code path.1} up to the first missing one move: a rotation stopped midway
   * (a crash, a move refused) leaves a gap, and the next one fills it instead of deleting a
   * generation more than {@code keep}.
   */
  private void rotate() throws IOException {
    if (keep == 0) {
      Files.deleteIfExists(path);
      return;
    }
    int kept = 0;
    while (kept < keep && Files.exists(rotated(kept + 1))) {
      kept++;
    }
    if (kept == keep) {
      Files.deleteIfExists(rotated(keep));
      kept--;
    }
    for (int i = kept; i >= 1; i--) {
      Files.move(rotated(i), rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
    }
    Files.move(path, rotated(1), StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * A new file's name made durable: fsyncing the file does not make its directory entry durable on
   * every file system. Where a directory cannot be opened (Windows), the file's own fsync is all
   * there is.
   */
  private static void syncDirectory(Path dir) {
    if (dir == null) {
      return;
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | RuntimeException e) {
      // not possible here: the file's fsync stands alone
    }
  }

  /** The {@code i}th rotated file: {@code path.i}. */
  Path rotated(int i) {
    return path.resolveSibling(path.getFileName() + "." + i);
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
