package dev.sebridge.approval;

import dev.sebridge.command.Untrusted;
import dev.sebridge.imds.Imds;
import dev.sebridge.imds.ImdsResult;
import dev.sebridge.imds.ScheduledEvent;
import dev.sebridge.imds.ScheduledEventsDocument;
import dev.sebridge.imds.VmIdentity;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checks an approval passes on a fresh IMDS read, never on a cached document: every EventId is
 * listed, {@code Scheduled}, lists this VM in Resources, is of an allowed type, and lists no VM
 * beyond those its issuer counted, when the command names them (its {@code resources} claim): IMDS
 * releases an approved event for every VM in its Resources, and a VM Azure added to the event since
 * the issuer decided would go down counted nowhere.
 *
 * <p>Resuming a command that a restart interrupted (its POST may or may not have gone out), an
 * event already {@code Started} counts as approved before the restart, and is not posted again.
 */
final class ImdsChecks {
  private final Imds imds;
  private final Duration timeout;
  private final ApprovalSettings settings;
  private final VmIdentity vm;
  private final Retry retry = ImdsRetry.of("imds-read");

  ImdsChecks(Imds imds, Duration timeout, ApprovalSettings settings, VmIdentity vm) {
    this.imds = imds;
    this.timeout = timeout;
    this.settings = settings;
    this.vm = vm;
  }

  /** What to do: refuse, or post these EventIds (none when resuming and all had started). */
  sealed interface Check {}

  record Refuse(Decision decision) implements Check {}

  record Post(List<String> eventIds) implements Check {}

  /**
   * @param counted the VM names the issuer counted for each event, by EventId in lower case; an
   *     event it has no entry for is not checked for them (a local policy, an issuer that names
   *     none)
   */
  Check check(List<String> eventIds, boolean resuming, Map<String, Set<String>> counted) {
    ImdsResult<ScheduledEventsDocument> fresh =
        retry.executeSupplier(() -> imds.scheduledEvents(timeout));
    if (fresh instanceof ImdsResult.Failed<ScheduledEventsDocument> f) {
      return new Refuse(
          Decision.failed(
              ReasonCode.IMDS_UNAVAILABLE,
              "could not read IMDS to check the events: " + f.failure(),
              null));
    }
    ScheduledEventsDocument doc = ((ImdsResult.Ok<ScheduledEventsDocument>) fresh).value();
    List<String> toPost = new ArrayList<>();
    for (String id : eventIds) {
      Optional<ScheduledEvent> found =
          doc.events().stream()
              .filter(x -> x.key().equals(id.toLowerCase(Locale.ROOT)))
              .findFirst();
      if (found.isEmpty()) {
        return new Refuse(
            resuming
                ? Decision.failed(
                    ReasonCode.INTERRUPTED,
                    "the agent restarted while handling this command and IMDS lists no event "
                        + id
                        + " any more; whether StartRequests was posted before is unknown",
                    null)
                : Decision.rejected(ReasonCode.UNKNOWN_EVENT, "IMDS lists no event " + id));
      }
      ScheduledEvent e = found.get();
      if (!e.lists(vm.name())) {
        return new Refuse(
            Decision.rejected(
                ReasonCode.NOT_LISTED,
                "event " + id + " does not list this VM (" + vm.name() + ") in Resources"));
      }
      if (!settings.typeAllowed(e.eventType())) {
        return new Refuse(
            Decision.rejected(
                ReasonCode.TYPE_NOT_ALLOWED,
                e.eventType() + " events are not approved here (approval.allow-types)"));
      }
      if (e.isScheduled()) {
        Set<String> allowed = counted.get(e.key());
        List<String> beyond =
            allowed == null
                ? List.of()
                : e.resources().stream()
                    .filter(r -> !allowed.contains(r.toLowerCase(Locale.ROOT)))
                    .toList();
        if (!beyond.isEmpty() && resuming) {
          // Our POST may have gone out before the restart: not "nothing posted".
          return new Refuse(
              Decision.failed(
                  ReasonCode.INTERRUPTED,
                  "the agent restarted while handling this command, and event "
                      + id
                      + " now lists "
                      + Untrusted.text(String.join(", ", beyond), Untrusted.REASON)
                      + ", which the approval's issuer did not count: whether StartRequests was"
                      + " posted before is unknown, and it is not posted again",
                  null));
        }
        if (!beyond.isEmpty()) {
          return new Refuse(
              Decision.rejected(
                  ReasonCode.RESOURCES_CHANGED,
                  "event "
                      + id
                      + " now lists "
                      + Untrusted.text(String.join(", ", beyond), Untrusted.REASON)
                      + ", which the approval's issuer did not count: approving would release"
                      + " them too; ask again"));
        }
        toPost.add(id);
      } else if (!(resuming && e.isStarted())) {
        return new Refuse(
            Decision.rejected(
                ReasonCode.NOT_SCHEDULED,
                "event " + id + " is " + e.eventStatus() + ", not Scheduled"));
      }
    }
    return new Post(toPost);
  }
}
