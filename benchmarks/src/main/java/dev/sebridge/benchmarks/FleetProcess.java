package dev.sebridge.benchmarks;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.sebridge.state.StateDirectory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fleet service under {@link FleetBenchmark}: its own process, started as the launcher starts
 * {@code sebridge fleet} ({@code -Xmx512m}, or {@code --fleet-heap}), and read through its API and
 * {@code /metrics} with the benchmark's approver token.
 */
final class FleetProcess implements AutoCloseable {
  static final String TOKEN = "bench-approver-token-0123456789";

  /** The heap the launcher gives {@code sebridge fleet}. */
  static final String LAUNCHER_HEAP = "512m";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern QUANTILE =
      Pattern.compile(
          "sebridge_fleet_view_delay_seconds\\{quantile=\"([0-9.]+)\"\\} ([0-9.eE+-]+)");
  private static final Pattern HEAP =
      Pattern.compile("jvm_memory_used_bytes\\{area=\"heap\",[^}]*\\} ([0-9.eE+-]+)");

  private final Process process;
  private final String url;
  private final Path log;
  private final HttpClient http = HttpClient.newHttpClient();

  private FleetProcess(Process process, String url, Path log) {
    this.process = process;
    this.url = url;
    this.log = log;
  }

  private static final Pattern CLOSED_AT_CAP =
      Pattern.compile("closed (\\d+) new connection\\(s\\) as they opened");

  /**
   * Connections the service closed as they opened because their address held its share of the cap
   * already ({@code AddressConnections}'s INFO lines in its log, summed): the benchmark's clients
   * all come from one address.
   */
  long closedAtAddressCap() throws IOException {
    Matcher m = CLOSED_AT_CAP.matcher(Files.readString(log));
    long n = 0;
    while (m.find()) {
      n += Long.parseLong(m.group(1));
    }
    return n;
  }

  /** The readers who open the live page streams ({@link ApiLoad}), 8 streams each. */
  static List<String> readerTokens() {
    List<String> t = new ArrayList<>();
    for (int i = 0; i < FleetApiPhases.LIVE_STREAMS / FleetApiPhases.LIVE_STREAMS_EACH; i++) {
      t.add(String.format("bench-reader-token-%02d-0123456789", i));
    }
    return t;
  }

  /** The signing key and the approver token the service is started with, under {@code work}. */
  static void writeSecrets(Path work) throws IOException {
    ECKey key;
    try {
      key = new ECKeyGenerator(Curve.P_256).keyID("fleet-bench").generate();
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IOException(e);
    }
    Path keyFile = work.resolve("key.jwk");
    Files.writeString(keyFile, key.toJSONString());
    StateDirectory.restrict(keyFile);
    Path tokens = work.resolve("tokens.yaml");
    List<Map<String, String>> entries = new ArrayList<>();
    entries.add(Map.of("token", TOKEN, "principal", "bench", "role", "approver"));
    List<String> readers = readerTokens();
    for (int i = 0; i < readers.size(); i++) {
      entries.add(Map.of("token", readers.get(i), "principal", "reader-" + i, "role", "reader"));
    }
    new ObjectMapper(new YAMLFactory()).writeValue(tokens.toFile(), entries);
    StateDirectory.restrict(tokens);
  }

  /**
   * Starts the service from the built distribution under {@code repo}, its state under {@code
   * work/state}; with {@code inventory}, configured for an inventory whose Resource Graph reads
   * fail (the benchmark writes the inventory itself).
   */
  static FleetProcess start(
      Path repo,
      Path work,
      String bootstrap,
      String state,
      boolean inventory,
      String heap,
      List<String> jvmOptions)
      throws IOException {
    int port = freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As the launcher starts `sebridge fleet` (the sebridge script).
    cmd.addAll(List.of("-XX:+UseG1GC", "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError", "-Xss1m"));
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    Path lib = repo.resolve("bridge-app/target/dist/lib");
    cmd.add(lib + "/*" + java.io.File.pathSeparator + lib.resolve("server") + "/*");
    cmd.add("dev.sebridge.app.Main");
    cmd.addAll(List.of("fleet", "serve"));
    Map<String, String> settings =
        new HashMap<>(
            Map.ofEntries(
                Map.entry("fleet.kafka.bootstrap-servers", bootstrap),
                Map.entry("fleet.topic.envelopes", FleetBenchmark.EVENTS),
                Map.entry("fleet.topic.commands", FleetBenchmark.COMMANDS),
                Map.entry("fleet.replication-factor", "1"),
                Map.entry("fleet.state-dir", work.resolve(state).toString()),
                Map.entry("fleet.http.port", Integer.toString(port)),
                Map.entry("fleet.http.bind-address", "127.0.0.1"),
                // Every sign-in and slow connection admitted: the benchmark's readers sign in from
                // one address, and a slow-loris body held open is the worst case.
                Map.entry("fleet.http.sign-ins-per-minute", "100000"),
                // The 200 live pages hold 200 connections and fetch their sections on more, past
                // the 256 one address may hold at the default cap (a sixteenth of 4,096); in use
                // they are 200 browsers at as many addresses. At 16,384 one address may hold
                // 1,024: at 8,192 (512) the benchmark's own clients, the slow loris's 80 among
                // them, were seen at 479 (sampled every 250 ms), and a run lost reads to the cap.
                Map.entry("fleet.http.max-connections", "16384"),
                Map.entry("fleet.auth.tokens-file", work.resolve("tokens.yaml").toString()),
                Map.entry("fleet.signing.key-file", work.resolve("key.jwk").toString())));
    if (inventory) {
      settings.put("fleet.inventory.subscriptions", "00000000-0000-0000-0000-000000000000");
      settings.put("fleet.inventory.endpoint", "https://127.0.0.1:9");
      settings.put("fleet.inventory.refresh", "1h");
    }
    settings.forEach(
        (k, v) -> {
          cmd.add("--set");
          cmd.add(k + "=" + v);
        });
    Path log = work.resolve(state + "-" + port + ".log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    // Never left running after the benchmark, whatever ended it: one left over took CPU from the
    // next run on the same machine.
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    return new FleetProcess(p, "http://127.0.0.1:" + port, log);
  }

  String url() {
    return url;
  }

  long pid() {
    return process.pid();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(40, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }

  /** Polls the service's API until its view holds {@code count} VMs. */
  void awaitVms(int count, Duration timeout) {
    awaitListed("VMs", "/api/vms", "", "vms", count, timeout, Duration.ofMillis(200));
  }

  /** Polls the service's API until its view holds {@code count} closed events. */
  void awaitClosedEvents(int count, Duration timeout) {
    awaitListed(
        "closed events",
        "/api/events",
        "open=false",
        "events",
        count,
        timeout,
        Duration.ofSeconds(5));
  }

  /** Polls until the list {@code list} (narrowed by {@code filter}) has {@code count} items. */
  private void awaitListed(
      String what,
      String list,
      String filter,
      String field,
      int count,
      Duration timeout,
      Duration poll) {
    await("the fleet view holds " + count + " " + what)
        .atMost(timeout)
        .pollInterval(poll)
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("the fleet service died: " + Files.readString(log));
              }
              return ApiPages.count(this::get, list, filter, field) >= count;
            });
  }

  void awaitScheduled(String event, int count) {
    await("event " + event + " has " + count + " VMs Scheduled")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              JsonNode e = get("/api/events/" + event);
              return e != null && e.path("counts").path("scheduled").asInt() >= count;
            });
  }

  /** A GET's answer, or null while the service does not answer 200. */
  JsonNode get(String path) throws InterruptedException {
    try {
      HttpResponse<String> r =
          http.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (IOException notUpYet) {
      return null;
    }
  }

  HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
    return http.send(
        request(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  String metrics() throws IOException, InterruptedException {
    return http.send(request("/metrics").build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  double heapBytes() throws IOException, InterruptedException {
    Matcher m = HEAP.matcher(metrics());
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /** The view delay quantile {@code q} in milliseconds, from a {@link #metrics()} text. */
  static double quantile(String metrics, String q) {
    Matcher m = QUANTILE.matcher(metrics);
    while (m.find()) {
      if (Double.parseDouble(m.group(1)) == Double.parseDouble(q)) {
        return Double.parseDouble(m.group(2)) * 1000;
      }
    }
    return Double.NaN;
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", "Bearer " + TOKEN);
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
