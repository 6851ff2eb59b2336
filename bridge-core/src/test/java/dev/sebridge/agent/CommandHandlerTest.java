package dev.sebridge.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.approval.ApprovalService;
import dev.sebridge.approval.ApprovalSettings;
import dev.sebridge.command.CommandJournal;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.ReplayCache;
import dev.sebridge.command.TestKeys;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.spi.CommandSource;
import dev.sebridge.spi.ReceivedCommand;
import dev.sebridge.state.CrashPoints;
import dev.sebridge.state.StateDirectory;
import dev.sebridge.testing.FakeImds;
import dev.sebridge.testing.MutableClock;
import dev.sebridge.testing.RecordingPublisher;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The command path in-process, with IMDS in memory and a clock moved by hand: every step in order,
 * and a crash injected at each step followed by a restart over the same state directory.
 */
class CommandHandlerTest {
  static final VmIdentity ME = VmIdentity.of("55555555-0000-4000-8000-000000000000", "vm-b");
  static final JWK KEY = TestKeys.es256("k1");
  static final String RESULT = EnvelopeFactory.RESULT_TYPE;

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-11-23T10:00:00Z"));
  final FakeImds imds = new FakeImds(ME, clock);

  /** Stands for the durable outbox: what was published before a crash is still there after it. */
  final RecordingPublisher outbox = new RecordingPublisher();

  final List<List<String>> approvalsRecorded = new ArrayList<>();

  /** One run of the agent over the state directory: open, handle, crash or not, close. */
  final class Run implements AutoCloseable {
    final StateDirectory state = StateDirectory.open(dir, clock);
    final CommandHandler handler;

    Run(CrashPoints crashPoints) {
      AgentContext ctx =
          new AgentContext(
              Configuration.of(Map.of()),
              clock,
              state,
              new EnvelopeFactory(new AgentInfo("t", "h"), clock),
              outbox,
              new AgentMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
              crashPoints);
      handler =
          new CommandHandler(
              ctx,
              new CommandJournal(state, "test"),
              new ReplayCache(state, clock),
              new CommandVerifier(TestKeys.trusting(KEY), ME.vmId(), clock),
              new ApprovalService(
                  imds,
                  Duration.ofSeconds(5),
                  new ApprovalSettings(false, false, Duration.ofSeconds(9), false, false, Set.of()),
                  ME),
              (ids, at) -> approvalsRecorded.add(ids),
              ME);
    }

    /** What a command source would deliver from the committed position on. */
    void deliverFromPosition(List<ReceivedCommand> topic) throws InterruptedException {
      handler.recover();
      long from = handler.position().map(Long::parseLong).orElse(0L);
      List<ReceivedCommand> unread =
          topic.stream().filter(c -> Long.parseLong(c.position()) > from).toList();
      if (!unread.isEmpty()) {
        handler.handle(unread);
      }
    }

    @Override
    public void close() {
      state.close();
    }
  }

  byte[] command(String eventId) {
    return new CommandSigner(KEY, "iss")
        .sign(
            new CommandSigner.Request(
                ME.vmId(),
                List.of(eventId),
                "bob@example.com",
                "CHG-1",
                clock.instant(),
                Duration.ofMinutes(5)));
  }

  /** Records on a one-partition topic: position = next offset. */
  static List<ReceivedCommand> topic(byte[]... values) {
    List<ReceivedCommand> out = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      out.add(new ReceivedCommand(values[i], Long.toString(i + 1), "commands/0@" + i));
    }
    return out;
  }

  static JsonNode data(Envelope e) {
    return e.json().get("data");
  }

  @Test
  void aValidCommandIsPostedOnceAndGetsOneAcceptedResult() throws Exception {
    String e = imds.schedule("Reboot");
    byte[] cmd = command(e);
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic(cmd));
    }
    assertThat(imds.posts()).containsExactly(List.of(e));
    assertThat(outbox.ofType(RESULT)).hasSize(1);
    JsonNode d = data(outbox.ofType(RESULT).get(0));
    assertThat(d.get("outcome").asText()).isEqualTo("accepted");
    assertThat(d.get("commandId").asText()).isEqualTo(CommandSigner.commandId(cmd));
    assertThat(d.get("requestedBy").asText()).isEqualTo("bob@example.com");
    assertThat(approvalsRecorded).containsExactly(List.of(e));
  }

  /**
   * A poison record's result is committed with the position after the record: a restart reads on
   * from there, though no command of this VM's came after it. Before, the old position was kept,
   * and a restarted agent read the poison again (and died again).
   */
  @Test
  void aSkippedPoisonRecordIsNotReadAgainAfterARestart() throws Exception {
    byte[] poison =
        "{\"a record that kills the agent\"".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (Run run = new Run(CrashPoints.none())) {
      run.handler.recover();
      run.handler.poison(new dev.sebridge.spi.CommandSource.Skipped("commands/0@0", "1"), 3);
    }
    assertThat(outbox.ofType(RESULT)).hasSize(1);
    assertThat(data(outbox.ofType(RESULT).get(0)).get("reasonCode").asText())
        .isEqualTo("poison-record");
    try (Run run = new Run(CrashPoints.none())) {
      run.handler.recover();
      assertThat(run.handler.position()).contains("1");
      run.deliverFromPosition(topic(poison));
    }
    assertThat(outbox.ofType(RESULT)).as("the poison was not read again").hasSize(1);
  }

  /**
   * A batch of approvals each slow at IMDS (70 s of the agent's clock per POST, under {@link
   * CommandPump#STUCK}): the pump's stuck watch counts each command from its own start, so
   * readiness stays green while the batch moves on. Before, it counted from the batch's start and
   * turned red at the batch's second command.
   */
  @Test
  void aBatchOfSlowApprovalsIsNotReportedStuck() throws Exception {
    List<ReceivedCommand> batch =
        topic(
            command(imds.schedule("Reboot")),
            command(imds.schedule("Reboot")),
            command(imds.schedule("Reboot")));
    List<List<String>> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<CommandPump> pump =
        new java.util.concurrent.atomic.AtomicReference<>();
    imds.onPost(
        () -> {
          clock.advance(Duration.ofSeconds(70));
          problems.add(pump.get().problems()); // while the POST is under way
        });
    java.util.concurrent.BlockingQueue<List<ReceivedCommand>> reads =
        new java.util.concurrent.LinkedBlockingQueue<>(List.of(batch));
    try (Run run = new Run(CrashPoints.none())) {
      CommandSource source =
          new CommandSource() {
            @Override
            public String name() {
              return "test";
            }

            @Override
            public void open(java.util.Optional<String> position) {}

            @Override
            public List<ReceivedCommand> poll(Duration timeout) {
              try {
                List<ReceivedCommand> got =
                    reads.poll(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                return got == null ? List.of() : got;
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
              }
            }

            @Override
            public void close() {}
          };
      pump.set(
          new CommandPump(
              vmId -> source,
              java.util.concurrent.CompletableFuture.completedFuture(run.handler),
              new ReadingMarker(run.state, "test"),
              clock));
      pump.get().start();
      try {
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> pump.get().handled() == 3);
      } finally {
        pump.get().close();
      }
    }
    assertThat(imds.posts()).hasSize(3);
    assertThat(problems)
        .hasSize(3)
        .allSatisfy(p -> assertThat(p).noneMatch(x -> x.contains("has not returned since")));
  }

  /** Defect 1: the result is not lost when the agent dies before it is durable. */
  @Test
  void aCrashAfterThePostStillYieldsTheResultAndNoSecondPost() throws Exception {
    String e = imds.schedule("Reboot");
    byte[] cmd = command(e);
    try (Run run = new Run(CrashPoints.throwing(CrashPoints.PUMP_AFTER_POST))) {
      assertThatThrownBy(() -> run.deliverFromPosition(topic(cmd)))
          .isInstanceOf(CrashPoints.SimulatedCrash.class);
    }
    assertThat(outbox.ofType(RESULT)).isEmpty();
    assertThat(imds.status(e)).isEqualTo("Started");
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic(cmd));
    }
    assertThat(imds.posts()).as("one POST in all").hasSize(1);
    List<Envelope> results = outbox.ofType(RESULT);
    assertThat(results).hasSize(1);
    assertThat(data(results.get(0)).get("outcome").asText()).isEqualTo("accepted");
    assertThat(data(results.get(0)).get("commandId").asText())
        .isEqualTo(CommandSigner.commandId(cmd));
  }

  static Stream<String> pumpCrashPoints() {
    return Stream.of(
        CrashPoints.PUMP_AFTER_PENDING,
        CrashPoints.PUMP_AFTER_POST,
        CrashPoints.PUMP_AFTER_JOURNAL,
        CrashPoints.PUMP_AFTER_RESULT_DURABLE,
        CrashPoints.PUMP_AFTER_DONE);
  }

  /**
   * A batch of three valid commands and two bad ones, a crash at the point, a restart: every
   * command has exactly one result id (copies identical), every event one POST at most.
   */
  @ParameterizedTest
  @MethodSource("pumpCrashPoints")
  void aCrashAtAnyStepLosesNoResultAndPostsNothingTwice(String point) throws Exception {
    String a = imds.schedule("Reboot");
    String b = imds.schedule("Freeze");
    String c = imds.schedule("Redeploy");
    List<ReceivedCommand> topic =
        topic(
            command(a),
            "not json".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            command(b),
            command(c),
            CommandSigner.envelope(
                "forged", ME.vmId(), a, clock.instant(), "eyJhbGciOiJub25lIn0.e30."));
    try (Run run = new Run(CrashPoints.throwing(point))) {
      assertThatThrownBy(() -> run.deliverFromPosition(topic))
          .isInstanceOf(CrashPoints.SimulatedCrash.class);
    }
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic);
    }
    Map<String, List<Envelope>> byId = new LinkedHashMap<>();
    outbox.ofType(RESULT).forEach(e -> byId.computeIfAbsent(e.id(), k -> new ArrayList<>()).add(e));
    assertThat(byId).as("one result id per command").hasSize(5);
    byId.values()
        .forEach(
            copies ->
                assertThat(copies)
                    .allSatisfy(x -> assertThat(x.body()).isEqualTo(copies.get(0).body())));
    List<String> commandIds =
        byId.values().stream()
            .map(l -> data(l.get(0)).path("commandId").asText(null))
            .filter(id -> id != null)
            .toList();
    assertThat(commandIds).doesNotHaveDuplicates();
    assertThat(imds.posts().stream().flatMap(List::stream))
        .as("at most one POST per event")
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrder(a, b, c);
    assertThat(byId.values().stream().map(l -> data(l.get(0)).get("outcome").asText()).sorted())
        .containsExactly("accepted", "accepted", "accepted", "rejected", "rejected");
  }

  @Test
  void aReplayIsRejectedWithItsOwnResultIdAndNothingPosted() throws Exception {
    String e = imds.schedule("Reboot");
    byte[] cmd = command(e);
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic(cmd, cmd));
    }
    List<Envelope> results = outbox.ofType(RESULT);
    assertThat(results).extracting(Envelope::id).doesNotHaveDuplicates().hasSize(2);
    assertThat(results)
        .extracting(r -> data(r).get("reasonCode").asText())
        .containsExactly("accepted", "replayed");
    assertThat(imds.posts()).hasSize(1);
  }

  @Test
  void anExpiredCommandIsRejectedWithoutTouchingImds() throws Exception {
    String e = imds.schedule("Reboot");
    byte[] cmd = command(e);
    clock.advance(Duration.ofMinutes(7));
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic(cmd));
    }
    assertThat(data(outbox.ofType(RESULT).get(0)).get("reasonCode").asText()).isEqualTo("expired");
    assertThat(imds.reads()).isZero();
    assertThat(imds.posts()).isEmpty();
  }

  @Test
  void aLostReplayCacheRefusesCommandsUntilEveryOldOneHasExpired() throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("commands"));
    java.nio.file.Files.writeString(dir.resolve("commands/seen.json"), "{corrupt");
    String e = imds.schedule("Reboot");
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic(command(e)));
    }
    assertThat(data(outbox.ofType(RESULT).get(0)).get("reasonCode").asText())
        .isEqualTo("replay-cache-lost");
    assertThat(imds.posts()).isEmpty();
    // 11 minutes later every command that could have been recorded there has expired.
    clock.advance(Duration.ofMinutes(11).plusSeconds(1));
    try (Run run = new Run(CrashPoints.none())) {
      run.deliverFromPosition(topic(command(e), command(e)));
    }
    assertThat(imds.posts()).containsExactly(List.of(e));
  }

  @Test
  void rejectionsBeyondTheLimitAreCountedAndReportedTogetherOncePerInterval() throws Exception {
    List<ReceivedCommand> garbage = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      garbage.add(
          new ReceivedCommand(
              ("junk " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8),
              Long.toString(i + 1),
              "commands/0@" + i));
    }
    try (Run run = new Run(CrashPoints.none())) {
      run.handler.handle(garbage.subList(0, 150));
      run.handler.handle(garbage.subList(150, 200));
      assertThat(outbox.ofType(RESULT)).hasSize(20); // commands.rejections.reported
      run.handler.idle();
      assertThat(outbox.ofType(RESULT)).hasSize(20); // the interval is not over
      clock.advance(Duration.ofMinutes(1));
      run.handler.idle();
    }
    List<Envelope> results = outbox.ofType(RESULT);
    assertThat(results).hasSize(21);
    JsonNode summary = data(results.get(20));
    assertThat(summary.get("resultKind").asText()).isEqualTo("summary");
    assertThat(summary.at("/summary/rejected").asLong()).isEqualTo(180);
    assertThat(summary.at("/summary/byReason/malformed").asLong()).isEqualTo(180);
    assertThat(summary.at("/summary/firstRecord").asText()).isEqualTo("commands/0@20");
    assertThat(summary.at("/summary/lastRecord").asText()).isEqualTo("commands/0@199");
  }

  @Test
  void countsNotYetReportedSurviveARestart() throws Exception {
    List<ReceivedCommand> garbage = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      garbage.add(
          new ReceivedCommand(
              ("junk " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8),
              Long.toString(i + 1),
              "commands/0@" + i));
    }
    try (Run run = new Run(CrashPoints.none())) {
      run.handler.handle(garbage);
    }
    clock.advance(Duration.ofMinutes(2));
    try (Run run = new Run(CrashPoints.none())) {
      run.handler.idle();
    }
    assertThat(data(outbox.ofType(RESULT).get(20)).at("/summary/rejected").asLong()).isEqualTo(10);
  }

  @Test
  void theJournalReadsAPositionWrittenByEarlierVersions() throws Exception {
    try (StateDirectory state = StateDirectory.open(dir, clock)) {
      state.write("commands/position-test", "42".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertThat(new CommandJournal(state, "test").position()).contains("42");
    }
  }
}
