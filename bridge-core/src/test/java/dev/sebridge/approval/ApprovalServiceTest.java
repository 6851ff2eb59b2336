package dev.sebridge.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sebridge.approval.ApprovalResult.Outcome;
import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.imds.VmIdentity;
import dev.sebridge.testing.FakeImds;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checks on a fresh IMDS read and the POST, against IMDS in memory. */
class ApprovalServiceTest {
  static final VmIdentity ME = VmIdentity.of("55555555-0000-4000-8000-000000000000", "vm-b");
  final FakeImds imds = new FakeImds(ME, Clock.systemUTC());

  ApprovalService service(boolean dryRun, Set<String> allowTypes) {
    return new ApprovalService(
        imds,
        Duration.ofSeconds(5),
        new ApprovalSettings(false, false, Duration.ofSeconds(9), false, dryRun, allowTypes),
        ME);
  }

  ApprovalService service() {
    return service(false, Set.of());
  }

  @Test
  void postsOneRequestForEveryScheduledEventOfThisVm() {
    String a = imds.schedule("Reboot");
    String b = imds.schedule("Freeze");
    Decision d = service().approve(List.of(a, b), ReasonCode.ACCEPTED, false);
    assertThat(d.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(d.imdsStatus()).isEqualTo(200);
    assertThat(imds.posts()).containsExactly(List.of(a, b));
  }

  @Test
  void refusesWhatIsNotScheduledForThisVmAndPostsNothing() {
    String started = imds.schedule("Reboot");
    imds.start(started);
    String other = imds.schedule("Reboot", "Platform", List.of("vm-x"));
    String terminate = imds.schedule("Terminate");
    assertThat(service().approve(List.of("NOPE"), ReasonCode.ACCEPTED, false).reasonCode())
        .isEqualTo(ReasonCode.UNKNOWN_EVENT);
    assertThat(service().approve(List.of(started), ReasonCode.ACCEPTED, false).reasonCode())
        .isEqualTo(ReasonCode.NOT_SCHEDULED);
    assertThat(service().approve(List.of(other), ReasonCode.ACCEPTED, false).reasonCode())
        .isEqualTo(ReasonCode.NOT_LISTED);
    assertThat(service().approve(List.of(terminate), ReasonCode.ACCEPTED, false).reasonCode())
        .isEqualTo(ReasonCode.TYPE_NOT_ALLOWED);
    assertThat(imds.posts()).isEmpty();
    Decision allowed =
        service(false, Set.of("terminate")).approve(List.of(terminate), ReasonCode.ACCEPTED, false);
    assertThat(allowed.outcome()).isEqualTo(Outcome.ACCEPTED);
  }

  @Test
  void oneRefusedEventRefusesTheWholeCommand() {
    String mine = imds.schedule("Reboot");
    String notMine = imds.schedule("Reboot", "Platform", List.of("vm-x"));
    Decision d = service().approve(List.of(mine, notMine), ReasonCode.ACCEPTED, false);
    assertThat(d.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(imds.posts()).isEmpty();
    assertThat(imds.status(mine)).isEqualTo("Scheduled");
  }

  @Test
  void transientImdsFailuresAreRetriedAndABadRequestIsNot() {
    String e = imds.schedule("Reboot");
    imds.failReads(ImdsFailure.Kind.SERVER_ERROR, ImdsFailure.Kind.THROTTLED);
    imds.failPosts(ImdsFailure.Kind.TIMEOUT);
    Decision d = service().approve(List.of(e), ReasonCode.ACCEPTED, false);
    assertThat(d.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(imds.reads()).isEqualTo(3);

    String f = imds.schedule("Freeze");
    imds.failPosts(ImdsFailure.Kind.BAD_REQUEST, ImdsFailure.Kind.BAD_REQUEST);
    Decision refused = service().approve(List.of(f), ReasonCode.ACCEPTED, false);
    assertThat(refused.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(refused.reasonCode()).isEqualTo(ReasonCode.IMDS_REFUSED);
    assertThat(refused.imdsStatus()).isEqualTo(400);
    assertThat(imds.posts()).containsExactly(List.of(e));
  }

  @Test
  void anEventListingAVmItsIssuerDidNotCountIsRefusedAndNothingIsPosted() {
    String e = imds.schedule("Reboot", "Platform", List.of("vm-a", "VM-B"));
    String grown = imds.schedule("Reboot", "Platform", List.of("vm-a", "vm-b", "vm-c"));
    // counted as the fleet decided: names in any case, the check is by name without case
    Map<String, Set<String>> counted =
        Map.of(
            e.toLowerCase(Locale.ROOT), Set.of("vm-a", "vm-b"),
            grown.toLowerCase(Locale.ROOT), Set.of("vm-a", "vm-b"));
    Decision refused = service().approve(List.of(e, grown), ReasonCode.ACCEPTED, false, counted);
    assertThat(refused.outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(refused.reasonCode()).isEqualTo(ReasonCode.RESOURCES_CHANGED);
    assertThat(refused.reason()).contains(grown).contains("vm-c").doesNotContain("vm-a");
    assertThat(imds.posts()).isEmpty();
    // An event the claim does not name is not checked; one within it is posted.
    Decision posted =
        service()
            .approve(
                List.of(e, grown),
                ReasonCode.ACCEPTED,
                false,
                Map.of(e.toLowerCase(Locale.ROOT), Set.of("vm-a", "vm-b")));
    assertThat(posted.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(imds.posts()).containsExactly(List.of(e, grown));
  }

  @Test
  void anImdsThatCannotBeReadFailsTheApproval() {
    String e = imds.schedule("Reboot");
    imds.failReads(
        ImdsFailure.Kind.SERVER_ERROR, ImdsFailure.Kind.SERVER_ERROR, ImdsFailure.Kind.TIMEOUT);
    Decision d = service().approve(List.of(e), ReasonCode.ACCEPTED, false);
    assertThat(d.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(d.reasonCode()).isEqualTo(ReasonCode.IMDS_UNAVAILABLE);
    assertThat(imds.posts()).isEmpty();
  }

  @Test
  void dryRunChecksEverythingAndPostsNothing() {
    String e = imds.schedule("Reboot");
    Decision d = service(true, Set.of()).approve(List.of(e), ReasonCode.ACCEPTED, false);
    assertThat(d.outcome()).isEqualTo(Outcome.DRY_RUN);
    assertThat(imds.posts()).isEmpty();
  }

  @Test
  void resumingAfterARestartDoesNotPostAnEventThatHasStarted() {
    String e = imds.schedule("Reboot");
    imds.start(e); // our POST before the crash started it
    Decision d = service().approve(List.of(e), ReasonCode.ACCEPTED, true);
    assertThat(d.outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(d.imdsStatus()).isNull();
    assertThat(imds.posts()).isEmpty();

    String still = imds.schedule("Freeze"); // the crash came before the POST
    assertThat(service().approve(List.of(still), ReasonCode.ACCEPTED, true).imdsStatus())
        .isEqualTo(200);
    assertThat(imds.posts()).containsExactly(List.of(still));

    String gone = imds.schedule("Redeploy");
    imds.remove(gone);
    Decision unknown = service().approve(List.of(gone), ReasonCode.ACCEPTED, true);
    assertThat(unknown.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(unknown.reasonCode()).isEqualTo(ReasonCode.INTERRUPTED);
  }
}
