package dev.sebridge.sink.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Ports for servers that must know theirs before binding come from below the kernel's ephemeral
 * range, so that no outgoing connection can take them meanwhile. On this project's machines the
 * range was read as "3" (Files.readString of a /proc file), every port came from the ephemeral
 * range again, and a broker failed to bind ("Address already in use").
 */
class LoopbackPortsTest {
  @Test
  void theEphemeralRangeIsReadAndPortsComeFromBelowIt() {
    int low = LoopbackPorts.ephemeralLow();
    assertThat(low)
        .as("the kernel's ephemeral range starts above the privileged ports")
        .isGreaterThan(1024);
    for (int i = 0; i < 20; i++) {
      assertThat(LoopbackPorts.free()).isLessThan(low).isGreaterThan(0);
    }
  }
}
