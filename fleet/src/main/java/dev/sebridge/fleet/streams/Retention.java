package dev.sebridge.fleet.streams;

import java.time.Duration;

/**
 * How long each store keeps what it holds (docs/fleet.md, "Retention"), checked by wall-clock
 * punctuations:
 *
 * <ul>
 *   <li>an event every VM is done with: {@code closedEvents} after it closed;
 *   <li>a VM nothing was heard from (no envelope, no heartbeat) for {@code vms}: gone (scaled in,
 *       deleted, preempted). Its view is deleted and its part in each event it had open closes as
 *       {@code inferred} with the guess {@code vanished}, so such an event closes too;
 *   <li>an approval request: {@code history} after it was made (its Idempotency-Key is remembered
 *       as long);
 *   <li>a policy decision: {@code history} after it was made, once its event is no longer open;
 *   <li>a rollout completed or aborted through the API: {@code history} after its last action; a
 *       policy's rollout (it never completes, and an aborted one suspends its rule) drops what is
 *       older than {@code history}: VMs back or skipped, waves, actions, events over;
 *   <li>the ledger: its own rule ({@code Ledger}: a day after a VM is back, 30 days at most).
 * </ul>
 *
 * @param closedEvents how long a closed event stays queryable
 * @param vms how long a VM may be silent before it is gone
 * @param history how long requests, decisions and finished rollouts are kept
 * @param packClosed whether closed events' views are written packed ({@code ViewPacking}; {@code
 *     fleet.closed-views-packed}): off only to roll back to a version that cannot read them
 */
public record Retention(Duration closedEvents, Duration vms, Duration history, boolean packClosed) {
  /** Closed events' views packed. */
  public Retention(Duration closedEvents, Duration vms, Duration history) {
    this(closedEvents, vms, history, true);
  }

  public static final Duration VMS = Duration.ofDays(7);
  public static final Duration HISTORY = Duration.ofDays(30);

  /** How often the stores are checked against their rules. */
  static final Duration CHECK = Duration.ofMinutes(1);

  /** The defaults but for closed events. */
  public static Retention closedEvents(Duration closedEvents) {
    return new Retention(closedEvents, VMS, HISTORY);
  }
}
