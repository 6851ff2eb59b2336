package dev.sebridge.approval;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.JWK;
import dev.sebridge.agent.EnvelopePublisher;
import dev.sebridge.command.CommandSigner;
import dev.sebridge.command.CommandVerifier;
import dev.sebridge.command.ReceivedCommand;
import dev.sebridge.command.ReplayCache;
import dev.sebridge.command.TestKeys;
import dev.sebridge.envelope.AgentInfo;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.envelope.EnvelopeFactory;
import dev.sebridge.imds.DocumentParser;
import dev.sebridge.imds.ImdsClient;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.schemas.EnvelopeValidator;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.state.StateDirectory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The approval service against the simulator: crash recovery and the local policy. */
class ApprovalServiceTest {
  static final SimVm ME = SimVm.of("vm-b", "55555555-0000-4000-8000-000000000000");
  static final JWK KEY = TestKeys.es256("k1");
  @TempDir java.nio.file.Path dir;
  ImdsSimulator sim;
  StateDirectory state;
  final List<Envelope> published = new ArrayList<>();
  final List<String> approved = new ArrayList<>();
  final EnvelopePublisher publisher =
      new EnvelopePublisher() {
        @Override
        public void publish(List<Envelope> envelopes) {
          envelopes.forEach(e -> assertThat(EnvelopeValidator.validate(e.body())).isEmpty());
          published.addAll(envelopes);
        }

        @Override
        public boolean healthy() {
          return true;
        }

        @Override
        public void close(Duration timeout) {}
      };

  @BeforeEach
  void start() {
    sim = ImdsSimulator.builder().vm(ME).build().start();
    state = StateDirectory.open(dir, Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    state.close();
    sim.close();
  }

  ApprovalService service(ApprovalSettings settings) {
    VmIdentity vm = VmIdentity.of(ME.vmId(), ME.name());
    return new ApprovalService(
        new ImdsClient(sim.baseUri(), "2020-07-01", "2021-02-01"),
        Duration.ofSeconds(5),
        settings,
        new ReplayCache(state, Clock.systemUTC()),
        new CommandVerifier(TestKeys.trusting(KEY), ME.vmId(), Clock.systemUTC()),
        new EnvelopeFactory(new AgentInfo("t", "h"), Clock.systemUTC()),
        publisher,
        vm,
        (ids, at) -> approved.addAll(ids),
        Clock.systemUTC(),
        null);
  }

  static ApprovalSettings settings(boolean user, boolean freeze, boolean leaderOnly) {
    return new ApprovalSettings(user, freeze, Duration.ofSeconds(9), leaderOnly, false, Set.of());
  }

  byte[] command(String eventId) {
    return new CommandSigner(KEY, "iss")
        .sign(
            new CommandSigner.Request(
                ME.vmId(), List.of(eventId), "bob", "", Instant.now(), Duration.ofMinutes(5)));
  }

  @Test
  void aRedeliveryAtTheSamePositionAfterACrashIsNotHandledTwice() throws Exception {
    String e = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    byte[] cmd = command(e);
    assertThat(
            service(settings(false, false, false))
                .handleCommand(new ReceivedCommand(cmd, "8", "t/0@7")))
        .isPresent();
    // The agent died before committing position 8: the record comes again, after a restart.
    assertThat(
            service(settings(false, false, false))
                .handleCommand(new ReceivedCommand(cmd, "8", "t/0@7")))
        .isEmpty();
    assertThat(sim.startRequests()).hasSize(1);
    assertThat(published).hasSize(1);
  }

  @Test
  void aCommandInterruptedBeforeItsResultIsResumedNotCalledAReplay() throws Exception {
    String e = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    byte[] cmd = command(e);
    // As if the agent died after recording the command and before publishing its result.
    new ReplayCache(state, Clock.systemUTC())
        .put(
            CommandSigner.commandId(cmd),
            Instant.now().plusSeconds(300),
            "3",
            ReplayCache.State.PENDING);
    var r =
        service(settings(false, false, false))
            .handleCommand(new ReceivedCommand(cmd, "3", "t/0@2"));
    assertThat(r)
        .get()
        .extracting(ApprovalResult::outcome)
        .isEqualTo(ApprovalResult.Outcome.ACCEPTED);
    assertThat(approved).containsExactly(e);
  }

  @Test
  void aLostReplayCacheRefusesCommandsUntilEveryOldOneExpired() throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("commands"));
    java.nio.file.Files.writeString(dir.resolve("commands/seen.json"), "{corrupt");
    String e = sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())));
    var r =
        service(settings(false, false, false))
            .handleCommand(new ReceivedCommand(command(e), "1", "t/0@0"));
    assertThat(r.get().reasonCode()).isEqualTo("replay-cache-lost");
    assertThat(sim.startRequests()).isEmpty();
  }

  @Test
  void policiesApproveOnlyWhatTheyCover() throws Exception {
    ApprovalService s = service(settings(true, true, false));
    String user =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of(ME.name())).withSource("User"));
    String shortFreeze =
        sim.addEvent(EventSpec.scheduled("Freeze", List.of(ME.name())).withDuration(5));
    String longFreeze =
        sim.addEvent(EventSpec.scheduled("Freeze", List.of(ME.name())).withDuration(30));
    String unknownDuration =
        sim.addEvent(EventSpec.scheduled("Freeze", List.of(ME.name())).withDuration(-1));
    String userTerminate =
        sim.addEvent(EventSpec.scheduled("Terminate", List.of(ME.name())).withSource("User"));
    String notMine =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of("vm-x")).withSource("User"));
    var doc = DocumentParser.parse(sim.document("2020-07-01"));
    doc.events().forEach(ev -> s.onScheduled(ev, doc.incarnation()));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> published.size() >= 2);
    Thread.sleep(300);
    assertThat(approved).containsExactlyInAnyOrder(user, shortFreeze);
    assertThat(sim.eventStatus(longFreeze)).contains("Scheduled");
    assertThat(sim.eventStatus(unknownDuration)).contains("Scheduled");
    assertThat(sim.eventStatus(userTerminate)).contains("Scheduled");
    assertThat(sim.eventStatus(notMine)).contains("Scheduled");
    s.close();
  }

  @Test
  void leaderOnlyLeavesTheApprovalToTheFirstVmInResources() throws Exception {
    ApprovalService s = service(settings(true, false, true));
    String led =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of("VM-C", "vm-b")).withSource("User"));
    String notLed =
        sim.addEvent(EventSpec.scheduled("Reboot", List.of("vm-b", "vm-a")).withSource("User"));
    var doc = DocumentParser.parse(sim.document("2020-07-01"));
    doc.events().forEach(ev -> s.onScheduled(ev, doc.incarnation()));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> published.size() >= 1);
    Thread.sleep(300);
    assertThat(approved).containsExactly(led);
    assertThat(sim.eventStatus(notLed)).contains("Scheduled");
    s.close();
  }
}
