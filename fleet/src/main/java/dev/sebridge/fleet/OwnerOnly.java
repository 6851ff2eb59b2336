package dev.sebridge.fleet;

import dev.sebridge.config.ConfigException;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;

/** Secrets the service reads from files (tokens, the signing key) must be its owner's alone. */
public final class OwnerOnly {
  private OwnerOnly() {}

  /** Throws a {@link ConfigException} naming {@code key} if group or others may read the file. */
  public static void check(Path file, String key) {
    if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    try {
      for (PosixFilePermission p : Files.getPosixFilePermissions(file)) {
        if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
          throw new ConfigException(key, file + " must be readable by its owner only (chmod 600)");
        }
      }
    } catch (IOException e) {
      throw new ConfigException(key, "cannot read " + file + ": " + e.getMessage());
    }
  }
}
