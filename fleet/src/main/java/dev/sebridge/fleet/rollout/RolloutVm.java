package dev.sebridge.fleet.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * One VM of a rollout.
 *
 * @param vmId the VM
 * @param name its name
 * @param eventId the event of the rollout it has
 * @param group its group ({@code zone=1,scaleSet=web}), by the rollout's groupBy ({@link
 *     ListedVms#group})
 * @param phase {@code pending} (not released yet), {@code approved} (the rollout approved its
 *     event), {@code started}, {@code completed} (waiting for its agent and the settle time),
 *     {@code back}, {@code canceled} (the event was canceled for it), {@code skipped} (by an
 *     operator)
 * @param byPlatform true when its event started without the rollout's approval (NotBefore passed,
 *     or someone else approved): it counts against the limit all the same
 * @param wave the wave that approved it, or null
 * @param requestId the approval request that approved it, or null
 * @param approvedAt when the rollout approved it
 * @param startedAt when the rollout saw it start
 * @param completedAt when its event completed (the agent's envelope time)
 * @param agentBackAt when its agent was first heard from after the completion
 * @param backAt when it stopped counting (agent back and settle passed)
 * @param deadline when it must be back by, or the rollout halts
 * @param resultAcknowledged an operator resumed after its approval result halted the rollout
 * @param again how many times it went back to pending because its agent refused the approval, the
 *     event listing a VM the fleet had not counted ({@code resources-changed}); null: never. Its
 *     {@code requestId} is then the request refused, and its next release gets a new one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RolloutVm(
    String vmId,
    String name,
    String eventId,
    String group,
    Phase phase,
    boolean byPlatform,
    Integer wave,
    String requestId,
    Instant approvedAt,
    Instant startedAt,
    Instant completedAt,
    Instant agentBackAt,
    Instant backAt,
    Instant deadline,
    boolean resultAcknowledged,
    Integer again) {

  public RolloutVm {
    // A group recorded before groups' values were in lower case is read as named now.
    group = ListedVms.normalGroup(group);
  }

  /** Where a VM is in a rollout, for one event; written in lower case. */
  public enum Phase {
    PENDING,
    APPROVED,
    STARTED,
    COMPLETED,
    BACK,
    CANCELED,
    SKIPPED;

    @com.fasterxml.jackson.annotation.JsonValue
    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    @com.fasterxml.jackson.annotation.JsonCreator
    public static Phase of(String s) {
      return valueOf(s.toUpperCase(java.util.Locale.ROOT));
    }
  }

  public static final Phase PENDING = Phase.PENDING;
  public static final Phase APPROVED = Phase.APPROVED;
  public static final Phase STARTED = Phase.STARTED;
  public static final Phase COMPLETED = Phase.COMPLETED;
  public static final Phase BACK = Phase.BACK;
  public static final Phase CANCELED = Phase.CANCELED;
  public static final Phase SKIPPED = Phase.SKIPPED;

  /**
   * The key of a VM's entry for one event in {@link Rollout#vms()}: {@code <vmId>|<eventId>}, the
   * event id in lower case (IMDS's ids are GUIDs, compared case-insensitively). A VM with two
   * events in one rollout (a policy's Freeze and then its Reboot) has an entry for each.
   */
  public static String key(String vmId, String eventId) {
    return eventId == null ? vmId : vmId + "|" + dev.sebridge.fleet.model.EventIds.lower(eventId);
  }

  /** This entry's key in {@link Rollout#vms()}. */
  public String key() {
    return key(vmId, eventId);
  }

  /** Whether {@code k} is {@link #key()}, found without building the key. */
  boolean keyedBy(String k) {
    if (eventId == null || vmId == null) {
      return k.equals(key());
    }
    int n = vmId.length();
    return k.length() > n
        && k.startsWith(vmId)
        && k.charAt(n) == '|'
        && dev.sebridge.fleet.model.EventIds.endsWithLower(k, n + 1, eventId);
  }

  static RolloutVm pending(String vmId, String name, String eventId, String group) {
    return new RolloutVm(
        vmId, name, eventId, group, PENDING, false, null, null, null, null, null, null, null, null,
        false, null);
  }

  /** Released and not back yet: counts against its group's limit. */
  public boolean unavailable() {
    return phase.equals(APPROVED) || phase.equals(STARTED) || phase.equals(COMPLETED);
  }

  /** Nothing more will happen to it in this rollout. */
  public boolean done() {
    return phase.equals(BACK) || phase.equals(CANCELED) || phase.equals(SKIPPED);
  }

  RolloutVm phase(Phase p) {
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        p,
        byPlatform,
        wave,
        requestId,
        approvedAt,
        startedAt,
        completedAt,
        agentBackAt,
        backAt,
        deadline,
        resultAcknowledged,
        again);
  }

  RolloutVm approved(int wave, String requestId, Instant at, Instant deadline) {
    return new RolloutVm(
        vmId, name, eventId, group, APPROVED, false, wave, requestId, at, null, null, null, null,
        deadline, false, again);
  }

  /**
   * Pending again: its agent refused the approval because the event lists a VM the fleet had not
   * counted (Azure added it after the release); the rollout releases it again, counting it. Keeps
   * the refused request's id, from which the next release's is made, and a deadline: released again
   * by then, or the rollout halts ({@link VmProgress#failure}).
   */
  RolloutVm pendingAgain(Instant deadline) {
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        PENDING,
        false,
        null,
        requestId,
        null,
        null,
        null,
        null,
        null,
        deadline,
        false,
        again == null ? 1 : again + 1);
  }

  /** The same, no longer under a request (its agent's refusal of it halts nothing). */
  RolloutVm withoutRequest() {
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        phase,
        byPlatform,
        wave,
        null,
        approvedAt,
        startedAt,
        completedAt,
        agentBackAt,
        backAt,
        deadline,
        resultAcknowledged,
        again);
  }

  /** How many times it went back to pending ({@link #pendingAgain}). */
  int times() {
    return again == null ? 0 : again;
  }

  RolloutVm started(Instant at, Instant deadlineIfPlatform) {
    boolean platform = phase.equals(PENDING);
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        STARTED,
        platform || byPlatform,
        wave,
        requestId,
        approvedAt,
        at,
        completedAt,
        agentBackAt,
        backAt,
        platform ? deadlineIfPlatform : deadline,
        resultAcknowledged,
        again);
  }

  RolloutVm completed(Instant at, Instant deadlineIfPlatform) {
    boolean platform = phase.equals(PENDING);
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        COMPLETED,
        platform || byPlatform,
        wave,
        requestId,
        approvedAt,
        startedAt == null ? at : startedAt,
        at,
        agentBackAt,
        backAt,
        platform ? deadlineIfPlatform : deadline,
        resultAcknowledged,
        again);
  }

  RolloutVm agentBack(Instant at) {
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        phase,
        byPlatform,
        wave,
        requestId,
        approvedAt,
        startedAt,
        completedAt,
        at,
        backAt,
        deadline,
        resultAcknowledged,
        again);
  }

  RolloutVm back(Instant at) {
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        BACK,
        byPlatform,
        wave,
        requestId,
        approvedAt,
        startedAt,
        completedAt,
        agentBackAt,
        at,
        deadline,
        resultAcknowledged,
        again);
  }

  /** The same, to be back by {@code newDeadline}. */
  RolloutVm deadline(Instant newDeadline) {
    return with(newDeadline, resultAcknowledged);
  }

  RolloutVm resumed(Instant newDeadline) {
    return with(newDeadline, true);
  }

  private RolloutVm with(Instant newDeadline, boolean acknowledged) {
    return new RolloutVm(
        vmId,
        name,
        eventId,
        group,
        phase,
        byPlatform,
        wave,
        requestId,
        approvedAt,
        startedAt,
        completedAt,
        agentBackAt,
        backAt,
        newDeadline,
        acknowledged,
        again);
  }
}
