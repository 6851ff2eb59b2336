package dev.sebridge.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The image Jib wrote to {@code target/sebridge-image.tar} (no Docker daemon involved), taken apart
 * layer by layer and run as a container runtime would: its own root file system (chroot), its own
 * /proc, the user and entrypoint from its config. No Docker engine is needed, so this runs
 * everywhere the build runs (it needs root, or unprivileged user namespaces, for the chroot).
 */
class ContainerImageTest {
  static final Path TAR = Path.of("target", "sebridge-image.tar");
  static final Path WORK = Path.of("target", "image-test");
  static final SimVm VM = SimVm.of("image-vm-0", "66666666-0000-4000-8000-000000000000");
  static final ObjectMapper JSON = new ObjectMapper();
  static Path root;
  static JsonNode config;

  static void run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", command, out).isZero();
  }

  @BeforeAll
  static void unpack() throws Exception {
    assertThat(TAR).as("the image tarball (built before the tests by jib:buildTar)").exists();
    run(List.of("rm", "-rf", WORK.toString()));
    Path image = Files.createDirectories(WORK.resolve("image"));
    root = Files.createDirectories(WORK.resolve("root"));
    run(List.of("tar", "-xf", TAR.toString(), "-C", image.toString()));
    JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
    config = JSON.readTree(image.resolve(manifest.get("Config").asText()).toFile()).get("config");
    for (JsonNode layer : manifest.get("Layers")) {
      run(
          List.of(
              "tar",
              "--warning=no-unknown-keyword",
              "-xzf",
              image.resolve(layer.asText()).toString(),
              "-C",
              root.toString()));
    }
    // Mount points a runtime provides.
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    System.out.printf(
        "image tarball %.1f MB; runtime %s; %d application jars%n",
        Files.size(TAR) / 1e6,
        root.resolve("opt/java"),
        Files.list(root.resolve("app/libs")).count());
  }

  static boolean isRoot() throws Exception {
    Process p = new ProcessBuilder("id", "-u").start();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim().equals("0");
  }

  /**
   * The image's entrypoint plus {@code args}, in a new mount and PID namespace with the image as
   * root, /proc and /dev mounted, as the image's user (as root, chroot switches to it; otherwise an
   * unprivileged user namespace maps the caller to root, and the user is not switched).
   */
  static ProcessBuilder container(List<String> args) throws Exception {
    List<String> entry = new ArrayList<>();
    config.get("Entrypoint").forEach(a -> entry.add(a.asText()));
    entry.addAll(args);
    String abs = root.toAbsolutePath().toString();
    StringBuilder inner =
        new StringBuilder("mount --rbind /dev ")
            .append(abs)
            .append("/dev && exec chroot ")
            .append(isRoot() ? "--userspec=" + config.get("User").asText() + " " : "")
            .append(abs);
    for (String a : entry) {
      inner.append(" '").append(a.replace("'", "'\\''")).append("'");
    }
    List<String> cmd = new ArrayList<>(List.of("unshare"));
    if (!isRoot()) {
      cmd.addAll(List.of("--user", "--map-root-user"));
    }
    cmd.addAll(
        List.of(
            "--mount",
            "--pid",
            "--fork",
            "--kill-child=SIGTERM",
            "--mount-proc=" + abs + "/proc",
            "sh",
            "-c",
            inner.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().clear();
    config
        .get("Env")
        .forEach(
            e -> {
              String[] kv = e.asText().split("=", 2);
              pb.environment().put(kv[0], kv[1]);
            });
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    return pb;
  }

  /** The image runs the agent with the launcher's JVM settings, read from the same file. */
  @Test
  void theImageCarriesTheLaunchersJvmSettings() throws IOException {
    List<String> entry = new ArrayList<>();
    config.get("Entrypoint").forEach(a -> entry.add(a.asText()));
    assertThat(entry).contains("@/opt/sebridge/jvm.options");
    assertThat(root.resolve("opt/sebridge/jvm.options"))
        .hasSameTextualContentAs(Path.of("../bridge-app/src/main/dist/jvm.options"));
    List<String> env = new ArrayList<>();
    config.get("Env").forEach(e -> env.add(e.asText()));
    assertThat(env).contains("MALLOC_ARENA_MAX=2");
  }

  @Test
  void theImageRunsAsANonRootUserOnNoBaseImage() throws IOException {
    assertThat(config.get("User").asText()).isEqualTo("65532:65532");
    assertThat(Files.readString(root.resolve("etc/passwd"))).contains("sebridge:x:65532:65532:");
    assertThat(config.get("Entrypoint").get(0).asText()).isEqualTo("/opt/java/bin/java");
    assertThat(config.get("ExposedPorts").has("9464/tcp")).isTrue();
    assertThat(config.get("Volumes").has("/var/lib/sebridge")).isTrue();
    // Nothing but the runtime, its C libraries and the application: no shell, no package manager.
    assertThat(root.resolve("bin")).doesNotExist();
    assertThat(root.resolve("usr")).doesNotExist();
    assertThat(root.resolve("lib64/ld-linux-x86-64.so.2")).isExecutable();
    assertThat(root.resolve("opt/java/bin/java")).isExecutable();
  }

  @Test
  void theContainerPrintsItsVersion() throws Exception {
    Process p = container(List.of("--version")).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).startsWith("sebridge ");
  }

  @Test
  void theContainerRunsTheAgentAgainstIMDSAndStopsCleanly() throws Exception {
    try (ImdsSimulator sim = ImdsSimulator.builder().vm(VM).build().start()) {
      Path stdout = WORK.resolve("agent.out");
      Path stderr = WORK.resolve("agent.err");
      Process p =
          container(
                  List.of(
                      "run",
                      "--set",
                      "imds.endpoint=" + sim.baseUri(VM.name()),
                      "--set",
                      "imds.poll-interval=250ms",
                      "--set",
                      "sinks=stdout",
                      "--set",
                      "http.port=0"))
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile())
              .start();
      try {
        sim.addEvent(EventSpec.scheduled("Freeze", List.of(VM.name())).withId("IMG-1"));
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> !p.isAlive() || Files.readString(stdout).contains("\"EventId\":\"IMG-1\""));
        assertThat(p.isAlive()).as("container exited: %s", Files.readString(stderr)).isTrue();
        // The default state directory, made by the agent as the image's user.
        Path state = root.resolve("var/lib/sebridge/state");
        assertThat(state).isDirectory();
        if (isRoot()) {
          assertThat(Files.getAttribute(state, "unix:uid")).isEqualTo(65532);
        }
      } finally {
        // As `docker stop`: SIGTERM to the container's first process (the JVM, PID 1 inside).
        p.descendants().forEach(ProcessHandle::destroy);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
      }
      assertThat(p.exitValue()).as(Files.readString(stderr)).isZero();
      assertThat(Files.readString(stderr))
          .contains("sebridge agent started")
          .doesNotContain(" ERROR ");
      System.out.println(Files.readString(stderr));
    }
  }
}
