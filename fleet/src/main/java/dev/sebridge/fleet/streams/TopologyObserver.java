package dev.sebridge.fleet.streams;

import java.time.Duration;
import java.time.Instant;

/**
 * What the topology reports for the service's metrics; each method does nothing unless overridden.
 */
public interface TopologyObserver {
  /**
   * A VM's view whose newest envelope has this time became queryable (view lag: now minus this).
   */
  default void applied(Instant envelopeTime) {}

  /** A VM's event was approved this long after the VM first reported it Scheduled. */
  default void approvedAfter(Duration sinceScheduled) {}

  /**
   * A view (its store: VMs, events, requests, rollouts, policy decisions) changed on this instance.
   */
  default void viewChanged(String store) {}

  /**
   * A global store applied a change to a key ({@code value} null: deleted), once queryable. Called
   * on the global thread for every change: keep it cheap.
   */
  default void keyChanged(String store, String key, Object value) {}

  /** This instance holds the global view store {@code store} (told as its updater starts). */
  default void viewHeld(String store) {}

  /**
   * A global view store applies the record at {@code offset} of its topic's {@code partition}:
   * called before the store holds it; every other call for that record ({@link #keyChanged}, {@link
   * #viewChanged}, {@link #applied}) comes after this one and before {@link #viewRecordDone}. On
   * the global thread, restores included.
   */
  default void viewRecordStarted(String store, int partition, long offset) {}

  /** Everything a global view store tells of the record at {@code offset} has been told. */
  default void viewRecordDone(String store, int partition, long offset) {}

  /** A record of the commands topic sits on a partition its VM's agent does not read. */
  default void misrouted() {}

  /**
   * Whether the rollouts task on this instance is reading the rollouts topic up to where it stood
   * when the task started (nothing is stepped or released meanwhile).
   */
  default void rolloutsReplaying(boolean replaying) {}

  /**
   * Whether the rollouts task on this instance holds its rollouts and policies because the global
   * views are too far behind ({@link ViewsGate}): nothing is stepped or released meanwhile.
   */
  default void rolloutsHeld(boolean held) {}

  /**
   * The rollouts task stepped its rollouts and policies once (a tick: the ledger moved on, each
   * active rollout's step, the policies' pass, the ledger written), taking {@code took} of the
   * stream thread. Not called while it replays the rollouts topic, nor while it holds for the views
   * ({@link #rolloutsHeld}): nothing is stepped then.
   */
  default void rolloutsTicked(Duration took) {}

  /**
   * An event both an agent and Azure's central delivery have now reported: {@code first} reported
   * it {@code lead} before the other (their own clocks: the envelope's and the delivery's time).
   */
  default void seenByBoth(dev.sebridge.fleet.model.Source first, Duration lead) {}

  /** Tells every one of these (nulls left out). */
  static TopologyObserver all(TopologyObserver... observers) {
    java.util.List<TopologyObserver> list =
        java.util.Arrays.stream(observers).filter(java.util.Objects::nonNull).toList();
    return new TopologyObserver() {
      @Override
      public void applied(Instant envelopeTime) {
        list.forEach(o -> o.applied(envelopeTime));
      }

      @Override
      public void approvedAfter(Duration sinceScheduled) {
        list.forEach(o -> o.approvedAfter(sinceScheduled));
      }

      @Override
      public void viewChanged(String store) {
        list.forEach(o -> o.viewChanged(store));
      }

      @Override
      public void keyChanged(String store, String key, Object value) {
        list.forEach(o -> o.keyChanged(store, key, value));
      }

      @Override
      public void viewHeld(String store) {
        list.forEach(o -> o.viewHeld(store));
      }

      @Override
      public void viewRecordStarted(String store, int partition, long offset) {
        list.forEach(o -> o.viewRecordStarted(store, partition, offset));
      }

      @Override
      public void viewRecordDone(String store, int partition, long offset) {
        list.forEach(o -> o.viewRecordDone(store, partition, offset));
      }

      @Override
      public void misrouted() {
        list.forEach(TopologyObserver::misrouted);
      }

      @Override
      public void rolloutsReplaying(boolean replaying) {
        list.forEach(o -> o.rolloutsReplaying(replaying));
      }

      @Override
      public void rolloutsHeld(boolean held) {
        list.forEach(o -> o.rolloutsHeld(held));
      }

      @Override
      public void rolloutsTicked(Duration took) {
        list.forEach(o -> o.rolloutsTicked(took));
      }

      @Override
      public void seenByBoth(dev.sebridge.fleet.model.Source first, Duration lead) {
        list.forEach(o -> o.seenByBoth(first, lead));
      }
    };
  }

  TopologyObserver NONE = new TopologyObserver() {};
}
