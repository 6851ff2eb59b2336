package dev.sebridge.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Latency samples in milliseconds, with nearest-rank percentiles. */
final class Stats {
  private final List<Double> samples = new ArrayList<>();

  void add(double ms) {
    samples.add(ms);
  }

  /** The samples, as a run prints them ({@link FleetTickRuns}). */
  @com.fasterxml.jackson.annotation.JsonValue
  List<Double> samples() {
    return List.copyOf(samples);
  }

  /** Stats of these samples, as a run's printed figures are read back. */
  @com.fasterxml.jackson.annotation.JsonCreator
  static Stats of(List<Double> samples) {
    Stats s = new Stats();
    samples.forEach(s::add);
    return s;
  }

  int count() {
    return samples.size();
  }

  double percentile(double p) {
    if (samples.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  double max() {
    return samples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  String summary() {
    return String.format(
        "n=%d p50=%.1f ms p95=%.1f ms p99=%.1f ms max=%.1f ms",
        count(), percentile(50), percentile(95), percentile(99), max());
  }

  /** A markdown table: how many samples fell at or under each bound, and above the last. */
  String histogram(double[] boundsMs) {
    int[] counts = new int[boundsMs.length + 1];
    for (double v : samples) {
      int i = 0;
      while (i < boundsMs.length && v > boundsMs[i]) {
        i++;
      }
      counts[i]++;
    }
    StringBuilder b = new StringBuilder("| latency | approvals |\n|---|---|\n");
    for (int i = 0; i <= boundsMs.length; i++) {
      String range =
          i == 0
              ? String.format("<= %.0f ms", boundsMs[0])
              : i == boundsMs.length
                  ? String.format("> %.0f ms", boundsMs[i - 1])
                  : String.format("%.0f-%.0f ms", boundsMs[i - 1], boundsMs[i]);
      b.append("| ").append(range).append(" | ").append(counts[i]).append(" |\n");
    }
    return b.toString();
  }
}
