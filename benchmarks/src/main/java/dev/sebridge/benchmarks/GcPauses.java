package dev.sebridge.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JVM's collectors' pauses so far: how many, and their milliseconds. The beans of concurrent
 * cycles (ZGC's and Shenandoah's "Cycles") count work beside the application, not pauses, and are
 * left out; G1's "Concurrent GC" bean counts its remark and cleanup pauses (JDK 20 on).
 */
record GcPauses(long count, long ms) {
  static GcPauses sofar() {
    long count = 0;
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (!gc.getName().contains("Cycles")) {
        count += Math.max(0, gc.getCollectionCount());
        ms += Math.max(0, gc.getCollectionTime());
      }
    }
    return new GcPauses(count, ms);
  }

  /**
   * Milliseconds paused since {@code before}, 0 when no pause was: a pause under a millisecond
   * counts as 0.5 (the collection count changed, the time may not).
   */
  double since(GcPauses before) {
    return count == before.count ? 0 : Math.max(0.5, ms - before.ms);
  }
}
