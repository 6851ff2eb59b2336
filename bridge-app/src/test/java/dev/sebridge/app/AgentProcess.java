package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.simulator.ImdsSimulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.TestInfo;

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

  /**
   * {@code target/agent-logs/<class>/<test method>/}, emptied: the agents' stdout and stderr of a
   * test outlive it, so a failed run in CI explains itself.
   */
  static Path logDir(Class<?> testClass, TestInfo test) throws IOException {
    Path dir =
        Path.of("target", "agent-logs", testClass.getSimpleName())
            .resolve(test.getTestMethod().map(m -> m.getName()).orElse("class"));
    if (Files.isDirectory(dir)) {
      try (var old = Files.list(dir)) {
        for (Path p : old.toList()) {
          Files.delete(p);
        }
      }
    }
    return Files.createDirectories(dir);
  }

  static AgentProcess start(
      Path logDir, List<String> jvmArgs, Map<String, String> env, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    // The agent's stop signals at their default disposition, however the suite was started: a
    // process inherits ignored signals (nohup ignores SIGHUP, a shell's background job SIGINT),
    // and a JVM that starts with SIGHUP ignored runs no shutdown hook on it. env execs java: the
    // process id stays the agent's.
    cmd.addAll(List.of("env", "--default-signal=HUP,INT,TERM"));
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

  /**
   * {@code sebridge run} with a {@code --set} for each setting, after the test defaults (polls
   * every 250 ms, no HTTP endpoint), which a setting of the same key replaces.
   */
  static AgentProcess run(
      Path logDir, List<String> jvmArgs, Map<String, String> env, Map<String, String> settings)
      throws IOException {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("imds.poll-interval", "250ms");
    all.put("http.port", "0");
    all.putAll(settings);
    List<String> args = new ArrayList<>(List.of("run"));
    all.forEach(
        (k, v) -> {
          args.add("--set");
          args.add(k + "=" + v);
        });
    return start(logDir, jvmArgs, env, args.toArray(String[]::new));
  }

  /**
   * {@link #run}, then waits until the agent's VM has been served the simulator's current document
   * (with a VM-less endpoint: until the simulator answered a few more polls), and fails with its
   * stderr if it died instead.
   */
  static AgentProcess runPolling(
      ImdsSimulator sim,
      Duration wait,
      Path logDir,
      List<String> jvmArgs,
      Map<String, String> env,
      Map<String, String> settings)
      throws IOException {
    long gets = sim.scheduledEventsGets();
    long incarnation = sim.documentIncarnation();
    String endpoint = settings.getOrDefault("imds.endpoint", "");
    int vm = endpoint.indexOf("/vm/");
    // This agent's own VM served the current document: another agent's polls of the same
    // simulator do not count (they did, and a second agent could be "polling" before its first).
    String vmName = vm < 0 ? null : endpoint.substring(vm + 4).replaceAll("/.*", "");
    AgentProcess p = run(logDir, jvmArgs, env, settings);
    await()
        .atMost(wait)
        .until(
            () ->
                !p.isAlive()
                    || (vmName == null
                        ? sim.scheduledEventsGets() > gets + 2
                        : sim.servedIncarnation(vmName) >= incarnation));
    assertThat(p.isAlive()).as("agent died: %s", p.stderr()).isTrue();
    return p;
  }

  /**
   * Waits until each named VM has been served the simulator's current scheduled-events document:
   * its agent has read every state the simulator was in, so the scenario's next change cannot hide
   * one. Used instead of a fixed sleep between steps, which a busy machine outlasts.
   */
  static void awaitServed(ImdsSimulator sim, Duration wait, Collection<String> vmNames) {
    long now = sim.documentIncarnation();
    await()
        .atMost(wait)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> vmNames.stream().allMatch(vm -> sim.servedIncarnation(vm) >= now));
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
      throw new AssertionError("process did not end within " + timeout + "\n" + stderr());
    }
    return process.exitValue();
  }

  long pid() {
    return process.pid();
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
