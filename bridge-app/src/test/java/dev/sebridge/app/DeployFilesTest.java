package dev.sebridge.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.sink.loganalytics.testing.StreamDeclaration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What can be checked offline about the files under {@code deploy/}. */
class DeployFilesTest {
  static final Path DEPLOY = Path.of("..", "deploy");

  @TempDir Path tmp;

  /** [section] -> key -> values (a key may repeat). */
  static Map<String, Map<String, List<String>>> parseUnit(Path file) throws IOException {
    Map<String, Map<String, List<String>>> out = new LinkedHashMap<>();
    String section = null;
    for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String line = raw.trim();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        section = line.substring(1, line.length() - 1);
        out.put(section, new LinkedHashMap<>());
        continue;
      }
      int eq = line.indexOf('=');
      assertThat(section).as("key outside a section: %s", line).isNotNull();
      assertThat(eq).as("not key=value: %s", line).isPositive();
      out.get(section)
          .computeIfAbsent(line.substring(0, eq).trim(), k -> new ArrayList<>())
          .add(line.substring(eq + 1).trim());
    }
    return out;
  }

  @Test
  void theSystemdUnitIsHardenedAndKeepsStateAcrossRestarts() throws Exception {
    Path unit = DEPLOY.resolve("systemd/sebridge.service");
    Map<String, List<String>> service = parseUnit(unit).get("Service");
    Map<String, String> required =
        Map.ofEntries(
            Map.entry("User", "sebridge"),
            Map.entry("StateDirectory", "sebridge"),
            Map.entry("StateDirectoryMode", "0700"),
            Map.entry("NoNewPrivileges", "yes"),
            Map.entry("ProtectSystem", "strict"),
            Map.entry("ProtectHome", "yes"),
            Map.entry("PrivateTmp", "yes"),
            Map.entry("Restart", "always"),
            Map.entry("KillSignal", "SIGTERM"),
            Map.entry("CapabilityBoundingSet", ""),
            Map.entry("UMask", "0077"));
    required.forEach((k, v) -> assertThat(service.get(k)).as("[Service] %s", k).containsExactly(v));
    assertThat(service.get("ExecStart").get(0))
        .startsWith("/opt/sebridge/bin/sebridge run --config /etc/sebridge/sebridge.yaml");
    assertThat(parseUnit(unit).get("Install").get("WantedBy")).containsExactly("multi-user.target");
    // The SMBIOS UUID (root only) is copied as root for the agent's user, and a machine without
    // one starts all the same ("+-").
    assertThat(service.get("ExecStartPre"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s)
                    .startsWith("+-/bin/sh -c 'install ")
                    .contains("/sys/class/dmi/id/product_uuid /run/sebridge/smbios-uuid"));
    assertThat(service.get("Environment"))
        .contains("SEBRIDGE_VM_SMBIOS_UUID_FILE=/run/sebridge/smbios-uuid");
    assertThat(service.get("RuntimeDirectory")).containsExactly("sebridge");
  }

  /**
   * Every way the agent is installed runs it with the launcher's JVM settings: the systemd unit
   * through bin/sebridge (which reads jvm.options, as its test shows) with the same malloc arenas,
   * the Windows service with every option of jvm.options on its command line.
   */
  @Test
  void everyInstallRunsTheAgentWithTheLaunchersJvmSettings() throws Exception {
    List<String> options =
        Files.readAllLines(Path.of("src/main/dist/jvm.options")).stream()
            .map(String::trim)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .toList();
    assertThat(options).contains("-Xmx64m", "-Dsun.net.http.retryPost=false");
    assertThat(Files.readString(Path.of("src/main/dist/bin/sebridge")))
        .contains("$home/jvm.options")
        .contains("MALLOC_ARENA_MAX=\"${MALLOC_ARENA_MAX:-2}\"");
    Map<String, List<String>> service =
        parseUnit(DEPLOY.resolve("systemd/sebridge.service")).get("Service");
    assertThat(service.get("ExecStart").get(0)).startsWith("/opt/sebridge/bin/sebridge ");
    assertThat(service.get("Environment")).contains("MALLOC_ARENA_MAX=2");
    String windows = Files.readString(DEPLOY.resolve("windows/sebridge.xml"));
    String arguments =
        windows.substring(windows.indexOf("<arguments>"), windows.indexOf("</arguments>"));
    List<String> args = List.of(arguments.substring("<arguments>".length()).split(" "));
    assertThat(args).containsAll(options);
  }

  @Test
  void systemdAnalyzeFindsNothingToSayAboutTheUnit() throws Exception {
    Path analyze = Path.of("/usr/bin/systemd-analyze");
    if (!Files.isExecutable(analyze)) {
      // The parser test above still ran; say so instead of passing silently.
      System.out.println("systemd-analyze not installed: unit checked by the parser test only");
      return;
    }
    // The binary does not exist here: point ExecStart at one that does, keep everything else.
    String text =
        Files.readString(DEPLOY.resolve("systemd/sebridge.service"))
            .replace("/opt/sebridge/bin/sebridge", "/bin/true");
    Path copy = tmp.resolve("sebridge.service");
    Files.writeString(copy, text);
    String out = run(analyze.toString(), "verify", copy.toString());
    // verify exits 0 on unknown keys and bad values (it "ignores" them): any output is a finding.
    assertThat(out).as("systemd-analyze verify").isEmpty();
    // Control: a broken unit does produce output, so the assertion above can fail.
    Path broken = tmp.resolve("broken.service");
    Files.writeString(broken, "[Service]\nExecStart=/bin/true\nProtectSystem=sideways\n");
    assertThat(run(analyze.toString(), "verify", broken.toString())).contains("sideways");
  }

  @Test
  void shellScriptsParse() throws Exception {
    Map<Path, String> scripts =
        Map.of(
            DEPLOY.resolve("systemd/install.sh"), "sh",
            Path.of("src/main/dist/bin/sebridge"), "sh",
            Path.of("..", "scripts", "chaos.sh"), "bash",
            Path.of("..", "scripts", "fuzz.sh"), "bash");
    for (var e : scripts.entrySet()) {
      assertThat(run(e.getValue(), "-n", e.getKey().toString()))
          .as(e.getKey().toString())
          .isEmpty();
    }
  }

  static final Pattern DEFINED = Pattern.compile("\\b([A-Z][A-Za-z0-9_]*)\\s*=(?!=)");
  static final Pattern WORD = Pattern.compile("(?<![.\\w])([A-Z][A-Za-z0-9_]*)\\b(?!\\s*\\()");

  @Test
  void kqlQueriesUseOnlyColumnsOfTheTable() throws Exception {
    Set<String> columns = StreamDeclaration.fromRepository().columns().keySet();
    List<Path> queries;
    try (Stream<Path> s = Files.list(DEPLOY.resolve("kql"))) {
      queries = s.filter(p -> p.toString().endsWith(".kql")).sorted().toList();
    }
    assertThat(queries).hasSizeGreaterThanOrEqualTo(4);
    for (Path q : queries) {
      String text =
          Files.readString(q).replaceAll("(?m)//.*$", "").replaceAll("\"[^\"]*\"", "\"\"");
      assertThat(text.trim()).as(q.toString()).contains("VmScheduledEvents_CL");
      Set<String> defined = new TreeSet<>();
      Matcher d = DEFINED.matcher(text);
      while (d.find()) {
        defined.add(d.group(1));
      }
      Set<String> unknown = new TreeSet<>();
      Matcher w = WORD.matcher(text);
      while (w.find()) {
        String name = w.group(1);
        if (!columns.contains(name)
            && !defined.contains(name)
            && !name.equals("VmScheduledEvents_CL")) {
          unknown.add(name);
        }
      }
      assertThat(unknown).as("%s refers to columns the table does not have", q).isEmpty();
    }
  }

  static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out.trim();
  }
}
