package dev.sebridge.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's durable state directory ({@code state.dir}): created 0700, files 0600, locked so that
 * two agents never share it, and written atomically (temp file, fsync, rename, fsync of the
 * directory) so that a {@code kill -9} or power loss leaves either the old or the new content.
 */
public final class StateDirectory implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StateDirectory.class);
  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final Path dir;
  private final Clock clock;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private StateDirectory(Path dir, Clock clock, FileChannel lockChannel, FileLock lock) {
    this.dir = dir;
    this.clock = clock;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Creates (if needed) and locks the directory. Throws {@link StateDirectoryException} when it
   * cannot be created or another agent holds it.
   */
  public static StateDirectory open(Path dir, Clock clock) {
    try {
      createPrivateDirectories(dir);
      Path lockFile = dir.resolve("lock");
      FileChannel ch =
          FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      restrict(lockFile);
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        ch.close();
        throw new StateDirectoryException(
            "state directory " + dir + " is in use by another sebridge agent");
      }
      return new StateDirectory(dir, clock, ch, lock);
    } catch (IOException e) {
      throw new StateDirectoryException(
          "cannot use state directory " + dir + ": " + e.getMessage(), e);
    }
  }

  public Path path() {
    return dir;
  }

  public Path resolve(String name) {
    return dir.resolve(name);
  }

  /**
   * Replaces a file (a name, or a path relative to the directory) atomically and durably. An
   * interrupt does not stop it: a thread the agent's stop interrupted still records where it was (a
   * file channel would fail with {@code ClosedByInterruptException}, so the stop would look like a
   * crash); the file is written through a stream, which interrupts do not affect.
   */
  public void write(String name, byte[] content) {
    Path target = dir.resolve(name);
    Path tmp = dir.resolve(name + ".tmp");
    try {
      createPrivateDirectories(target.getParent());
      try (java.io.FileOutputStream out = new java.io.FileOutputStream(tmp.toFile())) {
        restrict(tmp);
        out.write(content);
        out.getFD().sync();
      }
      try {
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory(target.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + target, e);
    }
  }

  /** The content of a file, or empty when it does not exist. */
  public Optional<byte[]> read(String name) {
    try {
      return Optional.of(Files.readAllBytes(dir.resolve(name)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + dir.resolve(name), e);
    }
  }

  /**
   * Moves a file that cannot be read aside ({@code name.corrupt-<time>}), so the agent can go on
   * and a human can look at it later. Returns where it went.
   */
  public Path quarantine(String name, String why) {
    Path from = dir.resolve(name);
    Path to = dir.resolve(name + ".corrupt-" + STAMP.format(clock.instant()));
    try {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory(to.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot move corrupt " + from + " aside", e);
    }
    LOG.error(
        "State file {} is corrupt ({}); moved it to {} and starting from empty state",
        from,
        why,
        to);
    return to;
  }

  private static void syncDirectory(Path dir) {
    if (!POSIX) {
      return; // Windows cannot open a directory as a channel; NTFS journals the rename.
    }
    boolean interrupted = Thread.interrupted(); // a channel would not sync for such a thread
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      LOG.debug("fsync of directory {} failed: {}", dir, e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Makes a file readable and writable by its owner only (0600), where the file system can. */
  public static void restrict(Path file) throws IOException {
    if (POSIX) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
  }

  /**
   * Makes {@code dir} a directory for its owner only (0700): created with its missing parents (each
   * 0700) when absent, tightened when it exists. Existing parents are left as they are.
   */
  public static void createPrivateDirectories(Path dir) throws IOException {
    createMissing(dir);
    if (POSIX) {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }
  }

  private static void createMissing(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path parent = dir.toAbsolutePath().getParent();
    if (parent != null) {
      createMissing(parent);
    }
    try {
      if (POSIX) {
        Files.createDirectory(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } else {
        Files.createDirectory(dir);
      }
    } catch (java.nio.file.FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      LOG.debug("releasing the state lock failed", e);
    }
  }
}
