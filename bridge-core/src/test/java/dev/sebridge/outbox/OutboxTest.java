package dev.sebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sebridge.envelope.Envelope;
import dev.sebridge.spi.EventSink;
import dev.sebridge.spi.RetriableSinkException;
import dev.sebridge.state.StateDirectory;
import dev.sebridge.testing.EventSinkContractTest;
import dev.sebridge.testing.InMemorySink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutboxTest {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final OutboxSettings FAST =
      new OutboxSettings(
          64L * 1024 * 1024, 16 * 1024, 10, Duration.ofSeconds(5), Duration.ofMillis(200));

  @TempDir Path dir;
  final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  StateDirectory state() {
    StateDirectory s = StateDirectory.open(dir, Clock.systemUTC());
    open.add(s);
    return s;
  }

  Outbox outbox(StateDirectory state, OutboxSettings settings, InMemorySink... sinks) {
    Outbox o = new Outbox(state, List.of(sinks), settings, Clock.systemUTC());
    open.add(() -> o.close(Duration.ofSeconds(1)));
    return o;
  }

  static List<String> ids(List<Envelope> envelopes) {
    return envelopes.stream().map(Envelope::id).toList();
  }

  @Test
  void deliversToEverySinkInOrderAndForgetsWhatAllConfirmed() throws Exception {
    InMemorySink a = new InMemorySink("a");
    InMemorySink b = new InMemorySink("b");
    Outbox o = outbox(state(), FAST, a, b);
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 200);
    for (int i = 0; i < envs.size(); i += 7) {
      o.publish(envs.subList(i, Math.min(envs.size(), i + 7)));
    }
    assertThat(o.awaitDelivered(WAIT)).isTrue();
    assertThat(ids(a.received())).isEqualTo(ids(envs));
    assertThat(ids(b.received())).isEqualTo(ids(envs));
    // 200 envelopes of ~700 bytes over 16 KiB segments: all but the active segment are gone.
    try (var files = Files.list(dir.resolve("outbox"))) {
      assertThat(files.filter(p -> p.toString().endsWith(".log")).count()).isEqualTo(1);
    }
    assertThat(Files.readString(dir.resolve("outbox/cursor-a"))).isEqualTo("200");
  }

  @Test
  void aDeadSinkNeverHoldsBackAnother() throws Exception {
    InMemorySink healthy = new InMemorySink("healthy");
    InMemorySink dead = new InMemorySink("dead").down(true);
    Outbox o = outbox(state(), FAST, healthy, dead);
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 30);
    o.publish(envs.subList(0, 10));
    o.publish(envs.subList(10, 30));
    await().atMost(WAIT).until(() -> healthy.received().size() == 30);
    assertThat(dead.received()).isEmpty();
    await().atMost(WAIT).until(() -> !o.problems().isEmpty());
    assertThat(o.failingSinks()).containsExactly("dead");
    assertThat(o.pending("dead")).isEqualTo(30);
    dead.down(false);
    assertThat(o.awaitDelivered(WAIT)).isTrue();
    assertThat(ids(dead.received())).isEqualTo(ids(envs));
    await().atMost(WAIT).until(() -> o.problems().isEmpty());
  }

  @Test
  void aRestartResumesEachSinkFromItsCursor() throws Exception {
    InMemorySink up = new InMemorySink("up");
    InMemorySink down = new InMemorySink("down").down(true);
    StateDirectory state = state();
    Outbox first = new Outbox(state, List.of(up, down), FAST, Clock.systemUTC());
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 12);
    first.publish(envs);
    await().atMost(WAIT).until(() -> up.received().size() == 12);
    first.close(Duration.ofMillis(300));
    InMemorySink up2 = new InMemorySink("up");
    InMemorySink down2 = new InMemorySink("down");
    Outbox second = outbox(state, FAST, up2, down2);
    assertThat(second.awaitDelivered(WAIT)).isTrue();
    assertThat(ids(down2.received())).isEqualTo(ids(envs));
    assertThat(up2.received()).isEmpty();
    second.publish(EventSinkContractTest.envelopes("vm-2", 1));
    assertThat(second.awaitDelivered(WAIT)).isTrue();
    assertThat(up2.received()).hasSize(1);
  }

  @Test
  void retriesAfterPartialFailuresDeliverEverythingInOrderWithOnlyIdenticalDuplicates()
      throws Exception {
    InMemorySink flaky = new InMemorySink("flaky").failureRate(0.4);
    Outbox o = outbox(state(), FAST, flaky);
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 150);
    for (int i = 0; i < envs.size(); i += 5) {
      o.publish(envs.subList(i, i + 5));
    }
    assertThat(o.awaitDelivered(Duration.ofSeconds(60))).isTrue();
    assertThat(flaky.distinctIds()).isEqualTo(ids(envs));
    assertThat(flaky.received().size()).isGreaterThan(150); // it did fail, and retry
    // Order: every envelope comes after all envelopes published before it, the first time it is
    // seen.
    List<String> seen = new ArrayList<>();
    for (Envelope e : flaky.received()) {
      if (!seen.contains(e.id())) {
        assertThat(ids(envs).indexOf(e.id())).isEqualTo(seen.size());
        seen.add(e.id());
      }
    }
  }

  @Test
  void aTornAppendIsCutOffAndEverythingConfirmedSurvives() throws Exception {
    InMemorySink down = new InMemorySink("s").down(true);
    StateDirectory state = state();
    Outbox first = new Outbox(state, List.of(down), FAST, Clock.systemUTC());
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 5);
    first.publish(envs);
    first.close(Duration.ofMillis(100));
    // kill -9 in the middle of the next append: half a record at the end of the segment.
    Path seg;
    try (var files = Files.list(dir.resolve("outbox"))) {
      seg = files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
    }
    Files.write(seg, new byte[] {0, 0, 2, 0, 1, 2, 3, 4, 5, 6, 7}, StandardOpenOption.APPEND);
    InMemorySink up = new InMemorySink("s");
    Outbox second = outbox(state, FAST, up);
    List<Envelope> more = EventSinkContractTest.envelopes("vm-2", 2);
    second.publish(more);
    assertThat(second.awaitDelivered(WAIT)).isTrue();
    List<String> expected = new ArrayList<>(ids(envs));
    expected.addAll(ids(more));
    assertThat(ids(up.received())).isEqualTo(expected);
  }

  @Test
  void whenFullHeartbeatsAreShedAndTransitionsAreKept() throws Exception {
    InMemorySink dead = new InMemorySink("dead").down(true);
    OutboxSettings tiny =
        new OutboxSettings(8 * 1024, 4 * 1024, 10, Duration.ofSeconds(5), Duration.ofMillis(200));
    Outbox o = outbox(state(), tiny, dead);
    List<Envelope> envs = EventSinkContractTest.envelopes("vm-1", 40);
    o.publish(envs.subList(0, 20)); // ~14 KiB: over the limit now
    assertThat(o.publishSheddable(envs.subList(20, 21))).isFalse();
    assertThat(o.shed()).isEqualTo(1);
    o.publish(envs.subList(21, 40));
    assertThat(o.overflows()).isEqualTo(19);
    dead.down(false);
    assertThat(o.awaitDelivered(WAIT)).isTrue();
    List<String> expected = new ArrayList<>(ids(envs.subList(0, 20)));
    expected.addAll(ids(envs.subList(21, 40)));
    assertThat(ids(dead.received())).isEqualTo(expected);
  }

  @Test
  void closingWaitsForDeliveryWithinTheTimeout() throws Exception {
    InMemorySink a = new InMemorySink("a");
    Outbox o = new Outbox(state(), List.of(a), FAST, Clock.systemUTC());
    o.publish(EventSinkContractTest.envelopes("vm-1", 50));
    o.close(Duration.ofSeconds(10));
    assertThat(a.received()).hasSize(50);
  }

  /**
   * A sink whose export never answers (its own timeout an hour away) does not hold the stop past
   * the timeout: the worker is interrupted and the envelope stays in the outbox. Before, a worker
   * still exporting when the timeout had been spent waiting for delivery was joined with no bound
   * ({@code Thread.join(0)}), so the agent's stop waited for the export's own timeout.
   */
  @Test
  void aSinkThatNeverAnswersDoesNotHoldTheStopPastItsTimeout() throws Exception {
    java.util.concurrent.CountDownLatch exporting = new java.util.concurrent.CountDownLatch(1);
    EventSink deaf =
        new EventSink() {
          @Override
          public String name() {
            return "deaf";
          }

          @Override
          public CompletableFuture<Void> export(List<Envelope> batch) {
            exporting.countDown();
            return new CompletableFuture<>();
          }

          @Override
          public CompletableFuture<Void> flush() {
            return CompletableFuture.completedFuture(null);
          }

          @Override
          public CompletableFuture<Void> shutdown() {
            return CompletableFuture.completedFuture(null);
          }
        };
    OutboxSettings hourLongExports =
        new OutboxSettings(
            64L * 1024 * 1024, 16 * 1024, 10, Duration.ofHours(1), Duration.ofMillis(200));
    StateDirectory state = state();
    Outbox o = new Outbox(state, List.of(deaf), hourLongExports, Clock.systemUTC());
    o.publish(EventSinkContractTest.envelopes("vm-1", 1));
    assertThat(exporting.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
        .isTrue();
    // 100 ms, then the worker is interrupted (after at least 200 ms) and given a second to end:
    // well within 5 s, and an hour short of what an unbounded wait would take.
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        Duration.ofSeconds(5), () -> o.close(Duration.ofMillis(100)));
    InMemorySink up = new InMemorySink("deaf");
    Outbox next = outbox(state, FAST, up);
    assertThat(next.awaitDelivered(WAIT)).isTrue();
    assertThat(up.received()).hasSize(1);
  }

  @Test
  void aDestinationAskingToWaitIsNotAskedAgainSooner() throws Exception {
    // Backoff here is at most 200 ms; the sink answers like HTTP 429 with Retry-After: 1.5 s.
    List<Long> attempts = new ArrayList<>();
    InMemorySink inner = new InMemorySink("throttled");
    EventSink throttled =
        new EventSink() {
          @Override
          public String name() {
            return "throttled";
          }

          @Override
          public synchronized CompletableFuture<Void> export(List<Envelope> batch) {
            attempts.add(System.nanoTime());
            if (attempts.size() <= 2) {
              return CompletableFuture.failedFuture(
                  new RetriableSinkException("429", null, Duration.ofMillis(1500)));
            }
            return inner.export(batch);
          }

          @Override
          public CompletableFuture<Void> flush() {
            return CompletableFuture.completedFuture(null);
          }

          @Override
          public CompletableFuture<Void> shutdown() {
            return inner.shutdown();
          }
        };
    Outbox o = new Outbox(state(), List.of(throttled), FAST, Clock.systemUTC());
    open.add(() -> o.close(Duration.ofSeconds(1)));
    o.publish(EventSinkContractTest.envelopes("vm-1", 3));
    await().atMost(WAIT).until(() -> inner.received().size() == 3);
    synchronized (throttled) {
      assertThat(attempts).hasSize(3);
      for (int i = 1; i < attempts.size(); i++) {
        assertThat(Duration.ofNanos(attempts.get(i) - attempts.get(i - 1)))
            .isGreaterThanOrEqualTo(Duration.ofMillis(1500));
      }
    }
  }
}
