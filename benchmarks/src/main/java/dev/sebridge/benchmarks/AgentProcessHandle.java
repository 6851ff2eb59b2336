package dev.sebridge.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The agent as the launcher starts it: {@code java <jvm.options> -cp dist/lib/* Main run ...}, so
 * the footprint measured is the shipped one. Reads RSS and CPU time from /proc (Linux).
 */
final class AgentProcessHandle implements AutoCloseable {
  private final Process process;
  private final long startedNanos;

  private AgentProcessHandle(Process process, long startedNanos) {
    this.process = process;
    this.startedNanos = startedNanos;
  }

  static AgentProcessHandle start(Path repo, Path log, List<String> args) throws IOException {
    return start(repo, log, List.of(), args);
  }

  /**
   * @param extraJvmOptions after the launcher's (diagnostics, or {@code --agent-opts} to try a
   *     setting before putting it in jvm.options)
   */
  static AgentProcessHandle start(
      Path repo, Path log, List<String> extraJvmOptions, List<String> args) throws IOException {
    return start(repo, log, extraJvmOptions, java.util.Map.of(), args);
  }

  /** With {@code env} added to the environment. */
  static AgentProcessHandle start(
      Path repo,
      Path log,
      List<String> extraJvmOptions,
      java.util.Map<String, String> env,
      List<String> args)
      throws IOException {
    return startJava(repo, log, extraJvmOptions, env, null, "dev.sebridge.app.Main", args);
  }

  /**
   * Any main class with the launcher's JVM options on the agent's class path ({@code
   * extraClassPath} first when not null), as {@link #start} runs the agent.
   */
  static AgentProcessHandle startJava(
      Path repo,
      Path log,
      List<String> extraJvmOptions,
      java.util.Map<String, String> env,
      Path extraClassPath,
      String mainClass,
      List<String> args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String line : Files.readAllLines(repo.resolve("bridge-app/src/main/dist/jvm.options"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        cmd.add(line.trim());
      }
    }
    cmd.addAll(extraJvmOptions);
    cmd.add("-cp");
    String lib = repo.resolve("bridge-app/target/dist/lib").toString() + "/*";
    cmd.add(extraClassPath == null ? lib : extraClassPath + java.io.File.pathSeparator + lib);
    cmd.add(mainClass);
    cmd.addAll(args);
    long t0 = System.nanoTime();
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putIfAbsent("MALLOC_ARENA_MAX", "2"); // as the launcher sets it
    pb.environment().putAll(env);
    Process p = pb.start();
    return new AgentProcessHandle(p, t0);
  }

  long startedNanos() {
    return startedNanos;
  }

  long pid() {
    return process.pid();
  }

  /** Resident set size in KiB (VmRSS). */
  long rssKib() throws IOException {
    return ProcStat.rssKib(pid());
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
