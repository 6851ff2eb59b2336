package dev.sebridge.benchmarks;

import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Live pages as a browser holds them: a Server-Sent Events stream per page, and, for each section
 * the stream says changed ({@code event: events}, {@code rollouts}, {@code silent}, {@code
 * coverage}, {@code approvals}), the section's fragment fetched again with the page's session, as
 * the page's htmx does ({@code hx-trigger="sse:<section>"}; {@code silent} and {@code coverage}
 * throttled to one fetch in 2 s, as the page's {@code throttle:2s}). A fragment's latency counts
 * from the line that told of the change to its answer. Until 2026-11-29 the benchmark's pages only
 * counted the lines, and never asked for what a real page asks for on each of them.
 */
final class LivePages implements AutoCloseable {
  /** The sections the page throttles, and by how much. */
  private static final Map<String, Duration> THROTTLED =
      Map.of("silent", Duration.ofSeconds(2), "coverage", Duration.ofSeconds(2));

  /** What fragments the pages asked for in a phase: their latencies and failures. */
  record Fragments(Stats ms, int failed, Map<String, Integer> causes) {}

  /**
   * One fetch: when it began (nanoTime), how long it took, what it failed with (null: it did not).
   */
  private record Fetch(long start, double ms, String failed) {}

  private final String url;
  private final HttpClient streams =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1) // as a browser's EventSource over plain HTTP
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final HttpClient fragments =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger lines = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private final List<Flow.Subscription> subscriptions =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Fetch> fetched = new ConcurrentLinkedQueue<>();

  /** The fetches under way: their start times (nanoTime) by a number of their own. */
  private final Map<Long, Long> inFlight = new ConcurrentHashMap<>();

  private final java.util.concurrent.atomic.AtomicLong fetches =
      new java.util.concurrent.atomic.AtomicLong();

  LivePages(String url) {
    this.url = url;
  }

  /** Opens {@code n} pages with this session; waits until the server answered each. */
  void open(String session, int n) {
    int before = open.get() + refused.get();
    for (int i = 0; i < n; i++) {
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(url + "/ui/stream"))
              .header("Cookie", session)
              .header("Accept", "text/event-stream")
              .build();
      AtomicBoolean answered = new AtomicBoolean();
      streams
          .sendAsync(
              req,
              info -> {
                answered.set(true);
                boolean ok = info.statusCode() == 200;
                (ok ? open : refused).incrementAndGet();
                return HttpResponse.BodySubscribers.fromLineSubscriber(new Page(ok, session));
              })
          .whenComplete(
              (r, error) -> {
                if (error != null && !answered.get()) {
                  // no answer at all (the connection closed as it opened): refused too
                  refused.incrementAndGet();
                  System.out.println("api: a live stream got no answer: " + error);
                }
              });
    }
    await("the live streams answered")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> open.get() + refused.get() >= before + n);
  }

  int open() {
    return open.get();
  }

  int refused() {
    return refused.get();
  }

  int closed() {
    return closed.get();
  }

  int lines() {
    return lines.get();
  }

  /**
   * The fetches that began between {@code from} and {@code to} (nanoTime), once every one of them
   * has answered or failed (a fetch not answered whole within 20 s fails).
   */
  Fragments between(long from, long to) {
    await("the section fetches begun in the phase")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> inFlight.values().stream().noneMatch(t -> t - to < 0));
    Stats ms = new Stats();
    int failed = 0;
    Map<String, Integer> causes = new java.util.TreeMap<>();
    for (Fetch f : fetched) {
      if (f.start() - from >= 0 && f.start() - to < 0) {
        if (f.failed() != null) {
          failed++;
          causes.merge(f.failed(), 1, Integer::sum);
        } else {
          ms.add(f.ms());
        }
      }
    }
    return new Fragments(ms, failed, causes);
  }

  /** One page: its stream's lines, and the fragments they make it fetch. */
  private final class Page implements Flow.Subscriber<String> {
    private final boolean ok; // a stream the server took, not a refusal's body
    private final String session;
    private final Map<String, Long> lastFetch = new ConcurrentHashMap<>();
    private final AtomicBoolean ended = new AtomicBoolean();

    Page(boolean ok, String session) {
      this.ok = ok;
      this.session = session;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscriptions.add(s);
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(String line) {
      if (!ok) {
        return;
      }
      lines.incrementAndGet();
      if (line.startsWith("event: ")) {
        fetch(line.substring("event: ".length()).trim());
      }
    }

    private void fetch(String section) {
      long now = System.nanoTime();
      Duration throttle = THROTTLED.get(section);
      Long last = lastFetch.get(section);
      if (throttle != null && last != null && now - last < throttle.toNanos()) {
        return;
      }
      lastFetch.put(section, now);
      long id = fetches.incrementAndGet();
      inFlight.put(id, now);
      java.util.concurrent.CompletableFuture<HttpResponse<Void>> answer;
      try {
        answer =
            fragments.sendAsync(
                HttpRequest.newBuilder(URI.create(url + "/ui/fragment/" + section))
                    .timeout(Duration.ofSeconds(20)) // the headers'
                    .header("Cookie", session)
                    .header("HX-Request", "true")
                    .build(),
                HttpResponse.BodyHandlers.discarding());
      } catch (RuntimeException e) {
        answer = java.util.concurrent.CompletableFuture.failedFuture(e);
      }
      answer
          .orTimeout(20, java.util.concurrent.TimeUnit.SECONDS) // the body's too: a failure
          .whenComplete(
              (r, error) -> {
                String failed =
                    error != null
                        ? Failures.cause(error)
                        : r.statusCode() != 200 ? "status " + r.statusCode() : null;
                fetched.add(new Fetch(now, (System.nanoTime() - now) / 1e6, failed));
                inFlight.remove(id);
              });
    }

    @Override
    public void onError(Throwable t) {
      end("error " + t);
    }

    @Override
    public void onComplete() {
      end("complete");
    }

    private void end(String how) {
      if (ok && ended.compareAndSet(false, true)) {
        closed.incrementAndGet();
        System.out.println("api: a live stream ended at " + java.time.Instant.now() + ": " + how);
      }
    }
  }

  /** Closes the streams. */
  @Override
  public void close() {
    subscriptions.forEach(Flow.Subscription::cancel);
  }
}
