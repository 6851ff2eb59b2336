package dev.sebridge.fleet.streams;

import java.time.Duration;
import java.time.Instant;

/** What the topology reports for the service's metrics. */
public interface TopologyObserver {
  /**
   * A VM's view whose newest envelope has this time became queryable (view lag: now minus this).
   */
  void applied(Instant envelopeTime);

  /** A VM's event was approved this long after the VM first reported it Scheduled. */
  void approvedAfter(Duration sinceScheduled);

  TopologyObserver NONE =
      new TopologyObserver() {
        @Override
        public void applied(Instant envelopeTime) {}

        @Override
        public void approvedAfter(Duration sinceScheduled) {}
      };
}
