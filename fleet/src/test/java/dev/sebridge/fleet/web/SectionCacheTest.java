package dev.sebridge.fleet.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The page's sections rendered once for every page that asks for the same views. */
class SectionCacheTest {
  final AtomicLong now = new AtomicLong();
  final SectionCache cache = new SectionCache(now::get, 4);
  final AtomicLong version = new AtomicLong(1);
  final AtomicInteger renders = new AtomicInteger();

  private String render() {
    return "views " + version.get() + ", render " + renders.incrementAndGet();
  }

  /**
   * Eight pages told of one change at once: one renders, the seven others wait for it and take its
   * rendering. Before, each rendered the section itself.
   */
  @Test
  void pagesAskingTogetherShareOneRendering() throws Exception {
    CountDownLatch rendering = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> pages = new ArrayList<>();
    List<AtomicReference<String>> got = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      AtomicReference<String> answer = new AtomicReference<>();
      got.add(answer);
      Thread t =
          new Thread(
              () ->
                  answer.set(
                      cache.get(
                          "events/reader",
                          version::get,
                          () -> {
                            rendering.countDown();
                            try {
                              release.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                            }
                            return render();
                          })));
      pages.add(t);
      t.start();
      if (i == 0) {
        assertThat(rendering.await(10, TimeUnit.SECONDS)).isTrue();
      }
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                pages.stream()
                        .skip(1)
                        .filter(t -> t.getState() == Thread.State.TIMED_WAITING)
                        .count()
                    == 7);
    release.countDown();
    for (Thread t : pages) {
      t.join(10_000);
    }
    assertThat(renders).hasValue(1);
    assertThat(got).allSatisfy(a -> assertThat(a.get()).isEqualTo("views 1, render 1"));
  }

  /**
   * A page asking after its views changed gets a new rendering, never the one before the change;
   * one asking for the same views gets the rendering kept, until it is {@link SectionCache#MAX_AGE}
   * old.
   */
  @Test
  void aChangeOrTheMaximumAgeRendersAgain() {
    assertThat(cache.get("rollouts/approver", version::get, this::render))
        .isEqualTo("views 1, render 1");
    assertThat(cache.get("rollouts/approver", version::get, this::render))
        .isEqualTo("views 1, render 1");
    assertThat(cache.get("rollouts/reader", version::get, this::render))
        .as("another role: its own rendering")
        .isEqualTo("views 1, render 2");

    version.incrementAndGet();
    assertThat(cache.get("rollouts/approver", version::get, this::render))
        .isEqualTo("views 2, render 3");

    now.addAndGet(SectionCache.MAX_AGE.toNanos());
    assertThat(cache.get("rollouts/approver", version::get, this::render))
        .isEqualTo("views 2, render 4");
  }

  /**
   * The cache keeps at most its number of renderings, the least recently asked for dropped first:
   * any number of narrowed lists and later pages cannot fill the heap.
   */
  @Test
  void theLeastRecentlyAskedForIsDroppedPastTheBound() {
    for (int page = 1; page <= 4; page++) {
      cache.get("events?page=" + page, version::get, this::render);
    }
    assertThat(renders).hasValue(4);
    cache.get("events?page=1", version::get, this::render); // asked for again: the most recent
    assertThat(renders).hasValue(4);

    cache.get("events?page=5", version::get, this::render); // the fifth: page 2 goes
    assertThat(renders).hasValue(5);
    assertThat(cache.get("events?page=1", version::get, this::render))
        .isEqualTo("views 1, render 1");
    assertThat(cache.get("events?page=2", version::get, this::render))
        .as("dropped: rendered again")
        .isEqualTo("views 1, render 6");
  }

  /** A rendering that fails fails its own request; the next request renders again. */
  @Test
  void aFailedRenderingIsNotKept() {
    assertThatThrownBy(
            () ->
                cache.get(
                    "approvals/reader",
                    version::get,
                    () -> {
                      throw new IllegalStateException("the views are not available");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(cache.get("approvals/reader", version::get, this::render))
        .isEqualTo("views 1, render 1");
  }
}
