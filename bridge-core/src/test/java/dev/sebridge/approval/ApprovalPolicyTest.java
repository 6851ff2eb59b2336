package dev.sebridge.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.FakeImds;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which rule approves which newly Scheduled event. */
class ApprovalPolicyTest {
  static final VmIdentity ME = VmIdentity.of("55555555-0000-4000-8000-000000000000", "vm-b");
  final FakeImds imds = new FakeImds(ME, Clock.systemUTC());

  static ApprovalPolicy policy(boolean user, boolean freeze, boolean leaderOnly) {
    return new ApprovalPolicy(
        new ApprovalSettings(user, freeze, Duration.ofSeconds(9), leaderOnly, false, Set.of()));
  }

  ScheduledEvent event(String id) {
    return imds.document().events().stream()
        .filter(e -> e.eventId().equals(id))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void policiesApproveOnlyWhatTheyCover() {
    ApprovalPolicy p = policy(true, true, false);
    String user = imds.schedule("Reboot", "User", List.of("vm-b"));
    String platform = imds.schedule("Reboot", "Platform", List.of("vm-b"));
    String userTerminate = imds.schedule("Terminate", "User", List.of("vm-b"));
    String notMine = imds.schedule("Reboot", "User", List.of("vm-x"));
    assertThat(p.ruleFor(event(user), ME)).contains(ReasonCode.POLICY_USER_INITIATED);
    assertThat(p.ruleFor(event(platform), ME)).isEmpty();
    assertThat(p.ruleFor(event(userTerminate), ME)).isEmpty();
    assertThat(p.ruleFor(event(notMine), ME)).isEmpty();
    assertThat(policy(false, true, false).ruleFor(event(user), ME)).isEmpty();
  }

  @Test
  void aShortFreezeIsApprovedAndALongOrUnknownOneIsNot() throws Exception {
    ApprovalPolicy p = policy(false, true, false);
    assertThat(p.ruleFor(freezeOf(5), ME)).contains(ReasonCode.POLICY_SHORT_FREEZE);
    assertThat(p.ruleFor(freezeOf(0), ME)).contains(ReasonCode.POLICY_SHORT_FREEZE);
    assertThat(p.ruleFor(freezeOf(9), ME)).isEmpty();
    assertThat(p.ruleFor(freezeOf(30), ME)).isEmpty();
    assertThat(p.ruleFor(freezeOf(-1), ME)).isEmpty();
  }

  @Test
  void leaderOnlyLeavesTheApprovalToTheFirstVmInResources() {
    ApprovalPolicy p = policy(true, false, true);
    String led = imds.schedule("Reboot", "User", List.of("VM-C", "vm-b"));
    String notLed = imds.schedule("Reboot", "User", List.of("vm-b", "vm-a"));
    assertThat(p.ruleFor(event(led), ME)).isPresent();
    assertThat(p.ruleFor(event(notLed), ME)).isEqualTo(Optional.empty());
  }

  static ScheduledEvent freezeOf(int durationSeconds) throws Exception {
    var e = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    e.put("EventId", "F-" + durationSeconds);
    e.put("EventType", "Freeze");
    e.put("ResourceType", "VirtualMachine");
    e.putArray("Resources").add("vm-b");
    e.put("EventStatus", "Scheduled");
    e.put("NotBefore", "Mon, 11 Apr 2022 22:26:58 GMT");
    e.put("EventSource", "Platform");
    e.put("DurationInSeconds", durationSeconds);
    return dev.sebridge.imds.DocumentParser.event(e);
  }
}
