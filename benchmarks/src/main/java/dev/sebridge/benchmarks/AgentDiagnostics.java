package dev.sebridge.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where a steady agent's memory goes: the NMT summary of a process started with {@code
 * -XX:NativeMemoryTracking=summary} ({@code jcmd PID VM.native_memory summary}), and the classes
 * its {@code -Xlog:class+load} file shows loaded, grouped by library.
 *
 * @param committedKib NMT category -> committed KiB, in NMT's order, "Total" first
 * @param classesByLibrary library -> classes loaded, largest first
 * @param classes all classes loaded
 * @param threads threads of the measured agent
 */
record AgentDiagnostics(
    Map<String, Long> committedKib,
    Map<String, Long> classesByLibrary,
    long classes,
    long classesFromCds,
    int threads) {

  private static final Pattern TOTAL =
      Pattern.compile("^Total: reserved=(\\d+)KB, committed=(\\d+)KB");
  private static final Pattern CATEGORY =
      Pattern.compile("^-\\s+(.+?) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");
  private static final Pattern LOADED = Pattern.compile("\\]\\s+(\\S+) source: (.*)$");

  /** Package prefixes -> the library a reader knows them by; the first match wins. */
  private static final Map<String, String> LIBRARIES = new LinkedHashMap<>();

  static {
    LIBRARIES.put("dev.sebridge.", "sebridge");
    LIBRARIES.put("org.apache.kafka.", "Kafka client");
    LIBRARIES.put("com.fasterxml.jackson.dataformat.yaml.", "YAML (Jackson + SnakeYAML)");
    LIBRARIES.put("org.yaml.", "YAML (Jackson + SnakeYAML)");
    LIBRARIES.put("com.fasterxml.", "Jackson");
    LIBRARIES.put("com.networknt.", "json-schema-validator");
    LIBRARIES.put("com.nimbusds.", "nimbus-jose-jwt");
    LIBRARIES.put("io.micrometer.prometheus", "Micrometer Prometheus registry");
    LIBRARIES.put("io.prometheus.", "Micrometer Prometheus registry");
    LIBRARIES.put("io.micrometer.", "Micrometer");
    LIBRARIES.put("io.github.resilience4j.", "resilience4j");
    LIBRARIES.put("io.vavr.", "resilience4j");
    LIBRARIES.put("com.azure.", "Azure SDK");
    LIBRARIES.put("reactor.", "Azure SDK");
    LIBRARIES.put("picocli.", "picocli");
    LIBRARIES.put("ch.qos.logback.", "logging (logback, slf4j)");
    LIBRARIES.put("org.slf4j.", "logging (logback, slf4j)");
    LIBRARIES.put("com.github.luben.", "Kafka client");
    LIBRARIES.put("org.xerial.", "Kafka client");
    LIBRARIES.put("net.jpountz.", "Kafka client");
    LIBRARIES.put("java.", "JDK");
    LIBRARIES.put("javax.", "JDK");
    LIBRARIES.put("jdk.", "JDK");
    LIBRARIES.put("sun.", "JDK");
    LIBRARIES.put("com.sun.", "JDK");
  }

  static AgentDiagnostics of(long pid, Path classLog, int threads) throws Exception {
    Map<String, Long> committed = new LinkedHashMap<>();
    for (String line : jcmd(pid, "VM.native_memory", "summary").split("\n")) {
      String l = line.strip();
      Matcher t = TOTAL.matcher(l);
      if (t.find()) {
        committed.put("Total", Long.parseLong(t.group(2)));
      }
      Matcher c = CATEGORY.matcher(l);
      if (c.find()) {
        committed.put(c.group(1), Long.parseLong(c.group(3)));
      }
    }
    Map<String, Long> byLibrary = new TreeMap<>();
    long all = 0;
    long cds = 0;
    for (String line : Files.readAllLines(classLog, StandardCharsets.UTF_8)) {
      Matcher m = LOADED.matcher(line);
      if (!m.find()) {
        continue;
      }
      all++;
      if (m.group(2).contains("shared objects file")) {
        cds++;
      }
      byLibrary.merge(library(m.group(1)), 1L, Long::sum);
    }
    Map<String, Long> sorted =
        byLibrary.entrySet().stream()
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .collect(
                Collectors.toMap(
                    Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
    return new AgentDiagnostics(committed, sorted, all, cds, threads);
  }

  static String library(String className) {
    for (Map.Entry<String, String> e : LIBRARIES.entrySet()) {
      if (className.startsWith(e.getKey())) {
        return e.getValue();
      }
    }
    int dot = className.indexOf('.', className.indexOf('.') + 1);
    return dot < 0 ? className : className.substring(0, dot);
  }

  private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    List<String> cmd = new java.util.ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("jcmd " + String.join(" ", command) + " failed: " + out);
    }
    return out;
  }
}
