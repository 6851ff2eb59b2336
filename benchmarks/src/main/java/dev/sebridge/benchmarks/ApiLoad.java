package dev.sebridge.benchmarks;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fleet API under load, as issue 29 item 4 asks: paged list and single-item reads sent
 * open-loop at a fixed rate (a request's latency counts from when it was due, so a slow answer
 * cannot hide the ones queued behind it), {@code /healthz} probed beside them, and live pages held
 * open by signed-in readers, each fetching what its stream says changed ({@link LivePages}). {@link
 * SlowLoris} adds the attack.
 */
final class ApiLoad implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NONCE = Pattern.compile("name=\"nonce\" value=\"([0-9a-f]{32})\"");
  private static final Pattern COOKIE = Pattern.compile("^(sebridge_[a-z]+=[^;]*)");

  /**
   * The latencies of one phase: reads and probes that answered 200 (reads also 404), and how many
   * of each did not (an error, another status, or no answer within 20 s: never in the latencies).
   */
  record Phase(
      Stats reads,
      Stats probes,
      int failed,
      int probesFailed,
      int notFound,
      LivePages.Fragments fragments,
      Map<String, Integer> failures,
      int mostConnections) {}

  private final String url;
  private final List<String> vmIds;
  private final HttpClient reads =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<String> eventIds = new ArrayList<>();
  private final LivePages pages;

  ApiLoad(String url, List<String> vmIds) {
    this.url = url;
    this.vmIds = List.copyOf(vmIds);
    this.pages = new LivePages(url);
  }

  /** The open events' ids a single-item read picks from (read once, before the phases). */
  void learnEvents() throws IOException, InterruptedException {
    HttpResponse<String> r = get("/api/events?open=true&limit=1000");
    for (JsonNode e : JSON.readTree(r.body()).path("events")) {
      eventIds.add(e.path("eventId").asText());
    }
  }

  /**
   * Signs each token in to the page (the form's own token and cookie, as a browser does) and opens
   * {@code perToken} live pages with its session ({@link LivePages}: each fetches the sections its
   * stream says changed); returns how many streams the server answered 200.
   */
  int openStreams(List<String> tokens, int perToken) throws IOException, InterruptedException {
    for (String token : tokens) {
      pages.open(signIn(token), perToken);
    }
    return pages.open();
  }

  /** Lines the live streams received so far (each change told is two or three). */
  int streamLines() {
    return pages.lines();
  }

  /** Live stream requests the server refused (503: past a cap). */
  int streamsRefused() {
    return pages.refused();
  }

  /** Live streams that ended (the server closed them, or they failed). */
  int streamsClosed() {
    return pages.closed();
  }

  /**
   * {@code rate} reads a second for {@code length}: a quarter the open events' first page, a sixth
   * those of one zone, a fifth the VMs' first page, a quarter one VM, the rest one event; {@code
   * /healthz} ten times a second beside them.
   */
  Phase run(Duration length, int rate) throws InterruptedException {
    Stats readMs = new Stats();
    Stats probeMs = new Stats();
    ConcurrentLinkedQueue<double[]> done = new ConcurrentLinkedQueue<>();
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger probesFailed = new AtomicInteger();
    AtomicInteger notFound = new AtomicInteger();
    AtomicInteger outstanding = new AtomicInteger();
    Map<String, Integer> causes = new java.util.concurrent.ConcurrentSkipListMap<>();
    Random random = new Random(29);
    ScheduledExecutorService timer = Executors.newScheduledThreadPool(1);
    // The connections this machine's clients hold to the server, at most (sampled 4 times a
    // second): the server closes an address's connections past a sixteenth of its cap.
    int port = URI.create(url).getPort();
    AtomicInteger mostConnections = new AtomicInteger(-1); // -1: not known
    ScheduledExecutorService counter = Executors.newSingleThreadScheduledExecutor();
    counter.scheduleAtFixedRate(
        () -> mostConnections.accumulateAndGet(Failures.establishedTo(port), Math::max),
        0,
        250,
        TimeUnit.MILLISECONDS);
    long start = System.nanoTime();
    long periodNanos = TimeUnit.SECONDS.toNanos(1) / rate;
    long reads = length.toNanos() / periodNanos;
    for (long k = 0; k < reads; k++) {
      long due = start + k * periodNanos;
      String path = pick(random);
      timer.schedule(
          () -> send(path, due, 0, done, failed, notFound, outstanding, causes),
          due - System.nanoTime(),
          TimeUnit.NANOSECONDS);
    }
    long probePeriod = TimeUnit.MILLISECONDS.toNanos(100);
    for (long k = 0; k < length.toNanos() / probePeriod; k++) {
      long due = start + k * probePeriod;
      timer.schedule(
          () -> send("/healthz", due, 1, done, probesFailed, notFound, outstanding, causes),
          due - System.nanoTime(),
          TimeUnit.NANOSECONDS);
    }
    try {
      timer.shutdown();
      timer.awaitTermination(length.toSeconds() + 10, TimeUnit.SECONDS);
      await("the phase's last answers")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> outstanding.get() == 0);
    } finally {
      counter.shutdownNow();
    }
    for (double[] d : done) {
      (d[0] == 0 ? readMs : probeMs).add(d[1]);
    }
    // The sections the pages asked for during the phase (not its last answers' wait), each once.
    LivePages.Fragments sections = pages.between(start, start + length.toNanos());
    return new Phase(
        readMs,
        probeMs,
        failed.get(),
        probesFailed.get(),
        notFound.get(),
        sections,
        Map.copyOf(causes),
        mostConnections.get());
  }

  private String pick(Random random) {
    int r = random.nextInt(100);
    if (r < 25) {
      return "/api/events?open=true&limit=50";
    } else if (r < 42) {
      return "/api/events?open=true&zone=" + (1 + random.nextInt(3)) + "&limit=50";
    } else if (r < 62) {
      return "/api/vms?limit=50";
    } else if (r < 87 || eventIds.isEmpty()) {
      return "/api/vms/" + vmIds.get(random.nextInt(vmIds.size()));
    }
    return "/api/events/" + eventIds.get(random.nextInt(eventIds.size()));
  }

  private void send(
      String path,
      long due,
      int kind,
      ConcurrentLinkedQueue<double[]> done,
      AtomicInteger failed,
      AtomicInteger notFound,
      AtomicInteger outstanding,
      Map<String, Integer> causes) {
    outstanding.incrementAndGet();
    reads
        .sendAsync(request(path).build(), HttpResponse.BodyHandlers.ofByteArray())
        .whenComplete(
            (resp, error) -> {
              double ms = (System.nanoTime() - due) / 1e6;
              int ok = kind == 0 ? 404 : 200; // a read may find its event gone; a probe may not
              if (error != null || (resp.statusCode() != 200 && resp.statusCode() != ok)) {
                failed.incrementAndGet();
                // what failed: the exception's class (and its cause's), or the status
                String who = kind == 0 ? "read " : "probe ";
                String cause =
                    error == null ? who + resp.statusCode() : who + Failures.cause(error);
                causes.merge(cause, 1, Integer::sum);
              } else {
                if (resp.statusCode() == 404) {
                  notFound.incrementAndGet();
                }
                done.add(new double[] {kind, ms});
              }
              outstanding.decrementAndGet();
            });
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(url + path))
        .timeout(Duration.ofSeconds(20))
        .header("Authorization", "Bearer " + FleetProcess.TOKEN);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return reads.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The sign-in form's cookie, as anyone gets it: {@code sebridge_login=<nonce>}. */
  String loginCookie() throws IOException, InterruptedException {
    return cookie(loginForm(), "sebridge_login");
  }

  private HttpResponse<String> loginForm() throws IOException, InterruptedException {
    return reads.send(
        HttpRequest.newBuilder(URI.create(url + "/ui/login")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The page's session cookie for {@code token}, signed in through the form. */
  private String signIn(String token) throws IOException, InterruptedException {
    HttpResponse<String> form = loginForm();
    Matcher nonce = NONCE.matcher(form.body());
    if (!nonce.find()) {
      throw new IllegalStateException("no sign-in form: " + form.statusCode());
    }
    String body =
        "nonce=" + nonce.group(1) + "&token=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
    HttpResponse<String> signed =
        reads.send(
            HttpRequest.newBuilder(URI.create(url + "/ui/login"))
                .header("Cookie", cookie(form, "sebridge_login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (signed.statusCode() != 303) {
      throw new IllegalStateException("sign-in refused: " + signed.statusCode());
    }
    return cookie(signed, "sebridge_fleet");
  }

  private static String cookie(HttpResponse<?> r, String name) {
    for (String c : r.headers().allValues("Set-Cookie")) {
      Matcher m = COOKIE.matcher(c);
      if (m.find() && m.group(1).startsWith(name + "=")) {
        return m.group(1);
      }
    }
    throw new IllegalStateException("no cookie " + name + " in " + r.headers().map());
  }

  /** Closes the live streams. */
  @Override
  public void close() {
    pages.close();
  }
}
