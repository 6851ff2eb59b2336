package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import dev.sebridge.testing.FakeImds;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.testing.RecordingPublisher;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The event pipeline in-process: documents and approvals in, envelopes and tracker.json out. */
class EventPipelineTest {
  static final VmIdentity ME = VmIdentity.of("66666666-0000-4000-8000-000000000000", "vm-p");

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-11-23T10:00:00Z"));
  final FakeImds imds = new FakeImds(ME, clock);
  final RecordingPublisher outbox = new RecordingPublisher();
  final ExecutorService threads = Executors.newCachedThreadPool();
  StateDirectory state;

  @AfterEach
  void stop() {
    threads.shutdownNow();
    if (state != null) {
      state.close();
    }
  }

  EventPipeline pipeline(CrashPoints crashPoints) {
    if (state != null) {
      state.close();
    }
    state = StateDirectory.open(dir, clock);
    AgentContext ctx =
        new AgentContext(
            Configuration.of(Map.of("imds.poll-interval", "1s")),
            clock,
            state,
            new EnvelopeFactory(new AgentInfo("t", "h"), clock),
            outbox,
            new AgentMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
            crashPoints);
    return new EventPipeline(ctx, () -> Optional.of(ME), null, new PollStats());
  }

  void poll(EventPipeline p) throws InterruptedException {
    clock.advance(Duration.ofSeconds(1));
    p.onDocument(imds.document(), clock.instant());
  }

  List<String> transitions() {
    return outbox.published().stream()
        .filter(e -> e.type().startsWith(EnvelopeFactory.TYPE_PREFIX))
        .map(e -> e.subject() + ":" + e.json().at("/data/transition").asText())
        .toList();
  }

  /**
   * Defect 2: an approval recorded while a document's envelopes are being published is not
   * overwritten by that document's commit; the approved event, gone while Scheduled, is completed.
   */
  @Test
  void anApprovalDuringAPublishIsKeptAndTheRemovalIsACompletion() throws Exception {
    EventPipeline p = pipeline(CrashPoints.none());
    String approved = imds.schedule("Reboot");
    poll(p);
    CountDownLatch inPublish = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    outbox.beforeEach(
        batch -> {
          inPublish.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    imds.schedule("Freeze");
    Future<?> document =
        threads.submit(
            () -> {
              poll(p);
              return null;
            });
    assertThat(inPublish.await(10, TimeUnit.SECONDS)).isTrue();
    // The command pump records its approval while the pipeline is publishing the Freeze.
    Future<?> approval = threads.submit(() -> p.approved(List.of(approved), clock.instant()));
    release.countDown();
    document.get(10, TimeUnit.SECONDS);
    approval.get(10, TimeUnit.SECONDS);
    outbox.beforeEach(batch -> {});
    assertThat(p.state().events().get(approved.toLowerCase()).approvedAt()).isNotNull();
    assertThat(new String(state.read(EventPipeline.TRACKER_FILE).orElseThrow()))
        .contains("approvedAt");

    imds.remove(approved); // gone while still Scheduled: Azure ran it at once after approval
    poll(p);
    assertThat(transitions())
        .contains(approved + ":Completed")
        .doesNotContain(approved + ":Canceled");
  }

  static Stream<String> pipelineCrashPoints() {
    return Stream.of(
        CrashPoints.PIPELINE_AFTER_OBSERVE,
        CrashPoints.PIPELINE_AFTER_STAGE,
        CrashPoints.PIPELINE_AFTER_PUBLISH);
  }

  /**
   * A crash between reading a document and committing it: the same transitions, with the same ids;
   * a copy published twice is identical.
   */
  @ParameterizedTest
  @MethodSource("pipelineCrashPoints")
  void aCrashBeforeTheCommitRepeatsTheSameTransitionsAndLosesNone(String point) throws Exception {
    EventPipeline p = pipeline(CrashPoints.throwing(point));
    String e = imds.schedule("Freeze");
    assertThatThrownBy(() -> poll(p)).isInstanceOf(CrashPoints.SimulatedCrash.class);
    EventPipeline restarted = pipeline(CrashPoints.none());
    poll(restarted);
    imds.start(e);
    poll(restarted);
    List<Envelope> scheduled =
        outbox.published().stream().filter(x -> x.type().endsWith(".scheduled.v1")).toList();
    assertThat(scheduled).allSatisfy(x -> assertThat(x.body()).isEqualTo(scheduled.get(0).body()));
    assertThat(transitions().stream().distinct()).containsExactly(e + ":Scheduled", e + ":Started");
  }
}
