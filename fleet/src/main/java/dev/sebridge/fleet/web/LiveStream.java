package dev.sebridge.fleet.web;

import dev.sebridge.concurrent.DaemonThreads;
import dev.sebridge.fleet.ViewChanges;
import dev.sebridge.fleet.ViewMark;
import dev.sebridge.fleet.api.HttpCall;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The page's Server-Sent Events. Once per {@code tick} (a second), one thread looks at which of
 * this instance's views changed and tells each open page (a tenth of them every tenth of the tick,
 * {@link #SLOTS}), in one write, the sections it must reload ({@code event: events}, {@code
 * rollouts}, {@code silent}, {@code coverage}, {@code approvals}): however many changes came, a
 * page hears of a section at most once a tick, and of nothing that did not change. A comment every
 * 15 s keeps proxies from closing an idle stream. Writes are asynchronous: no thread waits on a
 * page, and a page whose write is still pending is skipped until it drains. At most {@code
 * maxStreams} at once, and {@link #PER_PRINCIPAL} of one principal; more get 503 and htmx retries.
 * A stream ends when the token it was opened with expires (an Entra token's {@code exp}, an hour or
 * so): the page's next request is signed out, and its stream no longer tells someone whose session
 * is over when the fleet changes.
 */
public final class LiveStream implements AutoCloseable {
  /**
   * The pages are told in this many slots of a tick, each page in its own (round robin as they
   * open): a change reaches every page within the tick as before, but pages ask for the sections
   * again a tenth at a time, not all in one instant (200 pages asking at once held the API's reads
   * behind them).
   */
  static final int SLOTS = 10;

  private final java.util.concurrent.atomic.AtomicInteger nextSlot =
      new java.util.concurrent.atomic.AtomicInteger();

  private long ticks; // the ticker's own

  /**
   * Sections told at most once in so many of a page's ticks (the others: once a tick). The silent
   * agents and the coverage change with many VMs' views at 100,000 VMs, and each asks for a whole
   * list; the page once throttled them itself (htmx's {@code throttle:2s}), which drops a change
   * told within the two seconds instead of putting it off.
   */
  static final Map<String, Integer> EVERY = Map.of("silent", 2, "coverage", 2);

  /** Live pages one principal may have open at once. */
  static final int PER_PRINCIPAL = 8;

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LiveStream.class);
  private static final long KEEP_ALIVE_NANOS = Duration.ofSeconds(15).toNanos();

  private final ViewChanges changes;
  private final Semaphore permits;
  private final Set<Page> pages = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> perPrincipal = new java.util.HashMap<>();
  private final java.util.concurrent.atomic.AtomicLong writes =
      new java.util.concurrent.atomic.AtomicLong();
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("fleet-live"));

  private final java.time.Clock clock;

  /** Set once {@link #close} began: no stream is opened from then on. */
  private volatile boolean closed;

  public LiveStream(ViewChanges changes, int maxStreams) {
    this(changes, maxStreams, Duration.ofSeconds(1), java.time.Clock.systemUTC());
  }

  /**
   * @param tick how often changes are told; null: only when a test calls {@link #tick()}
   * @param clock what tokens' expiries are compared with
   */
  LiveStream(ViewChanges changes, int maxStreams, Duration tick, java.time.Clock clock) {
    this.changes = changes;
    this.clock = clock;
    this.permits = new Semaphore(maxStreams);
    if (tick != null) {
      long slot = Math.max(1, tick.toMillis() / SLOTS);
      ticker.scheduleWithFixedDelay(this::tickSafely, slot, slot, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Opens a page's stream.
   *
   * @param principal whose page (its id)
   * @param until when its token expires: the stream ends then; null: never
   */
  void serve(HttpCall call, String principal, java.time.Instant until) {
    if (closed) {
      FleetPage.html(call, 503, "the fleet service is stopping");
      return;
    }
    if (until != null && !clock.instant().isBefore(until)) {
      // (a token is taken up to a minute past its exp: the stream would end at once, again and
      // again)
      FleetPage.html(call, 401, "the session is over: sign in again");
      return;
    }
    if (!takePlace(principal)) {
      FleetPage.html(call, 503, "too many live pages for " + principal);
      return;
    }
    if (!permits.tryAcquire()) {
      releasePlace(principal);
      FleetPage.html(call, 503, "too many live pages");
      return;
    }
    // Nothing seen yet: the first tick names every section this instance has views of, with its
    // mark. The page's first requests carried no mark, and may have been answered by an instance
    // that was behind; a stream opened again (its instance gone) would miss what changed meanwhile.
    Page page =
        new Page(call.stream("text/event-stream; charset=utf-8"), Map.of(), principal, until);
    page.write("retry: 2000\n: live\n\n"); // before the ticker can see it: never two writes
    pages.add(page);
    if (page.ended.get()) {
      pages.remove(page); // its first write failed before it was added
    } else if (closed) {
      stop(page); // close() went past it
    }
  }

  private synchronized boolean takePlace(String principal) {
    int n = perPrincipal.getOrDefault(principal, 0);
    if (n >= PER_PRINCIPAL) {
      return false;
    }
    perPrincipal.put(principal, n + 1);
    return true;
  }

  private synchronized void releasePlace(String principal) {
    perPrincipal.computeIfPresent(principal, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** How many changes the views a section shows have seen on this instance. */
  long version(String section) {
    long v = 0;
    for (String store : SectionViews.SECTIONS.getOrDefault(section, List.of())) {
      v += changes.version(store);
    }
    return v;
  }

  /** Open streams now. */
  int open() {
    return pages.size();
  }

  /** Pages whose last write is still pending (they are skipped by a tick). */
  int pending() {
    return (int) pages.stream().filter(p -> p.writing.get()).count();
  }

  /** Chunks written to all pages so far. */
  long writes() {
    return writes.get();
  }

  private void tickSafely() {
    try {
      tick((int) (ticks++ % SLOTS));
    } catch (RuntimeException e) {
      LOG.error("the live page's stream could not tell the changes; tried again next tick", e);
    }
  }

  /** Tells every page that is not still taking a write the sections that changed. */
  void tick() {
    tick(-1);
  }

  /**
   * Tells the pages of one slot ({@code -1}: every page) what changed since they last heard: each
   * section that changed, with the {@link ViewMark} of the views it shows, which the page sends
   * back when it asks for the section, so that whichever instance answers shows at least that
   * change. A section of {@link #EVERY} is told at most once in so many of a page's ticks, and what
   * changed meanwhile is told at the first tick it may be (never dropped).
   *
   * @param slot the pages opened as the {@code slot}-th of each {@link #SLOTS}
   */
  void tick(int slot) {
    Map<String, Long> now = versions();
    Map<String, String> marks = new LinkedHashMap<>(); // taken after the counts: they cover them
    long t = System.nanoTime();
    java.time.Instant wall = clock.instant();
    for (Page p : pages) {
      if (slot >= 0 && p.slot != slot) {
        continue;
      }
      if (p.writing.get()) {
        continue; // this page has not taken the last write yet: it hears of this next tick
      }
      if (p.until != null && !wall.isBefore(p.until)) {
        p.end(null); // its token expired: ended, not cut (htmx asks again, and is signed out)
        continue;
      }
      long visit = ++p.visits;
      StringBuilder b = new StringBuilder();
      now.forEach(
          (section, v) -> {
            if (v <= p.seen.getOrDefault(section, 0L)) {
              return;
            }
            Long told = p.told.get(section);
            if (told != null && visit - told < EVERY.getOrDefault(section, 1)) {
              return; // told of it a tick ago: it hears of this when it may (seen stays)
            }
            String mark = marks.computeIfAbsent(section, s -> mark(s).toString());
            b.append("event: ").append(section).append("\ndata: ").append(mark).append("\n\n");
            p.seen.put(section, v);
            p.told.put(section, visit);
          });
      if (b.length() > 0) {
        p.write(b.toString());
      } else if (t - p.lastWrite >= KEEP_ALIVE_NANOS) {
        p.write(": still here\n\n");
      }
    }
  }

  private Map<String, Long> versions() {
    Map<String, Long> v = new LinkedHashMap<>();
    SectionViews.SECTIONS.keySet().forEach(section -> v.put(section, version(section)));
    return v;
  }

  /** Ends every stream: cut, as a write may still be pending on it. */
  @Override
  public void close() {
    closed = true;
    ticker.shutdownNow();
    pages.forEach(LiveStream::stop);
  }

  /**
   * Ends a page's stream as the service stops: completed, so that its EventSource opens another (on
   * another instance) after the stream's retry; cut only when a write of it is still pending.
   */
  private static void stop(Page p) {
    p.end(
        p.writing.get()
            ? new java.util.concurrent.CancellationException("the fleet service is stopping")
            : null);
  }

  private final class Page {
    private final int slot = Math.floorMod(nextSlot.getAndIncrement(), SLOTS);
    private final HttpCall.Stream stream;
    private final Map<String, Long> seen;
    private final AtomicBoolean writing = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final String principal;
    private final java.time.Instant until;
    private volatile long lastWrite = System.nanoTime();
    private final Map<String, Long> told = new java.util.HashMap<>(); // the ticker's own
    private long visits; // the ticker's own: ticks this page was looked at

    Page(
        HttpCall.Stream stream, Map<String, Long> seen, String principal, java.time.Instant until) {
      this.stream = stream;
      this.seen = new ConcurrentHashMap<>(seen);
      this.principal = principal;
      this.until = until;
    }

    void write(String chunk) {
      writing.set(true);
      writes.incrementAndGet();
      lastWrite = System.nanoTime();
      stream.write(
          chunk,
          failure -> {
            writing.set(false);
            if (failure != null) {
              end(failure);
            }
          });
    }

    void end(Throwable failure) {
      if (ended.compareAndSet(false, true)) {
        pages.remove(this);
        permits.release();
        releasePlace(principal);
        stream.end(failure);
      }
    }
  }

  /** The mark of the views section {@code name} reads, as this instance has them now. */
  ViewMark mark(String name) {
    return changes.mark(SectionViews.MARKED.get(name));
  }

  /**
   * Waits until this instance has applied {@code mark} (a page's, from the instance that told it of
   * a change), at most {@code max}.
   */
  boolean caughtUp(ViewMark mark, Duration max) throws InterruptedException {
    return changes.awaitApplied(mark, max);
  }
}
