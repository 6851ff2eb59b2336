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
}
