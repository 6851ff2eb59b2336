package dev.sebridge.agent;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What {@code /readyz} reports: the VM identity is known, IMDS answered recently (within five poll
 * intervals, at least 10 s), and every component that can fail on its own (sinks, the command
 * source) works. Each problem is one human-readable line.
 */
final class Readiness {
  private final BooleanSupplier identityKnown;
  private final PollStats stats;
  private final Duration fresh;
  private final Clock clock;
  private final List<Supplier<List<String>>> components;

  Readiness(
      BooleanSupplier identityKnown,
      PollStats stats,
      Duration pollInterval,
      Clock clock,
      List<Supplier<List<String>>> components) {
    this.identityKnown = identityKnown;
    this.stats = stats;
    Duration five = pollInterval.multipliedBy(5);
    this.fresh = five.compareTo(Duration.ofSeconds(10)) > 0 ? five : Duration.ofSeconds(10);
    this.clock = clock;
    this.components = List.copyOf(components);
  }

  List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!identityKnown.getAsBoolean()) {
      problems.add("VM identity not known yet");
    }
    Instant last = stats.lastSuccess();
    if (last == null) {
      problems.add("IMDS has not answered yet");
    } else {
      Duration silent = Duration.between(last, clock.instant());
      if (silent.compareTo(fresh) > 0) {
        problems.add("IMDS has not answered for " + silent.toSeconds() + "s");
      }
    }
    components.forEach(c -> problems.addAll(c.get()));
    return problems;
  }
}
