package dev.sebridge.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code sebridge} as a real OS process (same class path as the tests), for signals and kill -9.
 */
final class AgentProcess implements AutoCloseable {
  private final Process process;
  private final Path stdout;
  private final Path stderr;

  private AgentProcess(Process process, Path stdout, Path stderr) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  static AgentProcess start(
      Path logDir, List<String> jvmArgs, Map<String, String> env, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.sebridge.app.Main");
    cmd.addAll(List.of(args));
    Files.createDirectories(logDir);
    Path out = Files.createTempFile(logDir, "agent-", ".out");
    Path err = Files.createTempFile(logDir, "agent-", ".err");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().putAll(env);
    return new AgentProcess(pb.start(), out, err);
  }

  /** SIGKILL: no shutdown hook, no flush. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM, then the exit code. */
  int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("agent did not stop within " + timeout + "\n" + stderr());
    }
    return process.exitValue();
  }

  int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("process did not end within " + timeout);
    }
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String stdout() {
    return read(stdout);
  }

  String stderr() {
    return read(stderr);
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
