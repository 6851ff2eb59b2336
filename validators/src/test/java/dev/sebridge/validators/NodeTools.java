package dev.sebridge.validators;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the Node validators under {@code validators/node} with the machine's Node.js, installing
 * their packages first ({@code npm ci} from the committed lock file) when missing. Without Node.js
 * the tests fail saying what to install; they never skip.
 */
final class NodeTools {
  static final Path MODULE = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
  static final Path REPO = MODULE.getParent();
  static final Path DIR = MODULE.resolve("node");

  private NodeTools() {}

  /** What a validator printed, and how it exited. */
  record Result(int exit, String output) {}

  static synchronized void install() throws Exception {
    Path marker = DIR.resolve("node_modules/.package-lock.json");
    if (Files.exists(marker)
        && Files.getLastModifiedTime(marker)
                .compareTo(Files.getLastModifiedTime(DIR.resolve("package-lock.json")))
            >= 0) {
      return;
    }
    Result r = exec(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), 300);
    assertThat(r.exit()).as("npm ci in %s: %s", DIR, r.output()).isZero();
  }

  /** Runs {@code node SCRIPT ARGS...} in the node directory. */
  static Result node(String script, List<String> args) throws Exception {
    install();
    List<String> cmd = new ArrayList<>(List.of("node", script));
    cmd.addAll(args);
    return exec(cmd, 120);
  }

  private static Result exec(List<String> cmd, int seconds) throws Exception {
    Process p;
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(DIR.toFile()).redirectErrorStream(true);
      // Redocly's CLI reports usage to its vendor and checks for updates unless told not to.
      pb.environment().put("REDOCLY_TELEMETRY", "off");
      pb.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
      p = pb.start();
    } catch (IOException e) {
      throw new AssertionError(
          cmd.get(0)
              + " is required for the validators (Debian: apt-get install nodejs npm;"
              + " scripts/test installs them): "
              + e.getMessage(),
          e);
    }
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", cmd) + " did not finish in " + seconds + " s");
    }
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
