package dev.sebridge.agent;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The only class that touches the Prometheus registry, so that its classes load only when {@code
 * /metrics} is served ({@link AgentMetrics#forHttpPort}).
 */
final class PrometheusText {
  private PrometheusText() {}

  static MeterRegistry registry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /** The Prometheus text exposition, or empty when the registry is not a Prometheus one. */
  static String scrape(MeterRegistry registry) {
    return registry instanceof PrometheusMeterRegistry p ? p.scrape() : "";
  }
}
