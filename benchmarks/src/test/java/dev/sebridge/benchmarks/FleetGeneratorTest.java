package dev.sebridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The generated fleet's maintenance is what the report says it is, in both models: 2 % of the VMs
 * in maintenance at any time, in events of 1 to 50 VMs (25.5 on average), each event three
 * transitions over about 40 s, so about 150 transitions a second at 100,000 VMs.
 */
class FleetGeneratorTest {
  static final int VMS = 100_000;
  static final long TICK = Duration.ofMillis(100).toNanos();

  static final class Counting implements FleetGenerator.Output {
    final AtomicLong sent = new AtomicLong();

    @Override
    public void send(String vmId, byte[] envelope) {
      sent.incrementAndGet();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  /** Ten minutes of events moving on by their own clocks, ticked every 100 ms. */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void eventsMovingOnByTheirOwnClocksKeepTheirSizeAndRate() {
    Counting out = new Counting();
    FleetGenerator gen = new FleetGenerator(out, VMS, 1000);
    long sizeSamples = 0;
    double sizeSum = 0;
    long sentAfterWarmUp = 0;
    int ticks = (int) (Duration.ofMinutes(10).toNanos() / TICK);
    int warmUp = (int) (Duration.ofMinutes(2).toNanos() / TICK);
    for (int i = 0; i < ticks; i++) {
      gen.maintenanceTick(i * TICK);
      assertThat(gen.inMaintenance()).isBetween(VMS / 50 - 49, VMS / 50);
      if (i == warmUp) {
        sentAfterWarmUp = out.sent.get();
      }
      if (i > warmUp) {
        sizeSamples++;
        sizeSum += gen.inMaintenance() / (double) gen.openEvents();
      }
    }
    double meanSize = sizeSum / sizeSamples;
    double rate = (out.sent.get() - sentAfterWarmUp) / (double) ((ticks - warmUp) / 10);
    assertThat(meanSize).as("VMs per open event").isBetween(20.0, 31.0);
    assertThat(rate).as("transitions a second").isBetween(130.0, 170.0);
  }

  /** Thirty waves, one every 20 s: the same sizes and the same rate, all at once. */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void wavesKeepTheSameSizeAndRate() {
    Counting out = new Counting();
    FleetGenerator gen = new FleetGenerator(out, VMS, 1000);
    gen.maintenanceWave();
    long before = out.sent.get();
    double sizeSum = 0;
    for (int i = 0; i < 30; i++) {
      gen.maintenanceWave();
      assertThat(gen.inMaintenance()).isBetween(VMS / 50 - 49, VMS / 50);
      sizeSum += gen.inMaintenance() / (double) gen.openEvents();
    }
    assertThat(sizeSum / 30).as("VMs per open event").isBetween(20.0, 31.0);
    assertThat((out.sent.get() - before) / (30 * 20.0))
        .as("transitions a second")
        .isBetween(130.0, 170.0);
  }

  /** A fleet whose reserved VMs leave too few for its maintenance is refused, not looped on. */
  @Test
  void tooFewVmsForMaintenanceAreRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new FleetGenerator(new Counting(), 1010, 1000))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new FleetGenerator(new Counting(), 1000, 1000))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
