package dev.sebridge.agent;

import dev.sebridge.imds.ImdsFailure;
import dev.sebridge.track.TransitionType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The agent's metrics (Micrometer, scraped as Prometheus text on {@code /metrics}). Names follow
 * Prometheus conventions once rendered: {@code sebridge_imds_polls_total}, {@code
 * sebridge_imds_errors_total{class=...}}, {@code sebridge_transitions_total{transition=...}},
 * {@code sebridge_envelopes_published_total{sink=...}}, {@code sebridge_outbox_depth{sink=...}},
 * {@code sebridge_commands_total{origin,outcome,reason}}, {@code sebridge_approval_delay_seconds}.
 */
public final class AgentMetrics {
  private final MeterRegistry registry;
  private final Counter polls;
  private final Timer pollLatency;
  private final Map<ImdsFailure.Kind, Counter> imdsErrors = new EnumMap<>(ImdsFailure.Kind.class);
  private final Map<TransitionType, Counter> transitions = new EnumMap<>(TransitionType.class);
  private final Timer approvalDelay;

  public AgentMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.polls =
        Counter.builder("sebridge.imds.polls")
            .description("IMDS polls, answered or not")
            .register(registry);
    this.pollLatency =
        Timer.builder("sebridge.imds.poll.latency")
            .description("latency of IMDS polls answered with a valid document")
            .publishPercentileHistogram(false)
            .register(registry);
    for (ImdsFailure.Kind k : ImdsFailure.Kind.values()) {
      imdsErrors.put(
          k,
          Counter.builder("sebridge.imds.errors")
              .tag("class", k.label())
              .description("failed IMDS polls by class")
              .register(registry));
    }
    for (TransitionType t : TransitionType.values()) {
      transitions.put(
          t,
          Counter.builder("sebridge.transitions")
              .tag("transition", t.typeSegment())
              .description("scheduled-event transitions published")
              .register(registry));
    }
    this.approvalDelay =
        Timer.builder("sebridge.approval.delay")
            .description("time from an event first seen Scheduled to this agent's approval")
            .register(registry);
  }

  /** A registry that renders the Prometheus text format. */
  public static AgentMetrics prometheus() {
    return new AgentMetrics(PrometheusText.registry());
  }

  /**
   * The Prometheus registry when {@code /metrics} is served ({@code http.port} > 0); otherwise a
   * simple one, so that an agent nobody scrapes does not load the Prometheus classes (about 150).
   */
  public static AgentMetrics forHttpPort(int port) {
    return port > 0
        ? prometheus()
        : new AgentMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition, or empty when the registry is not a Prometheus one. */
  public String scrape() {
    return PrometheusText.scrape(registry);
  }

  void pollSucceeded(Duration latency) {
    polls.increment();
    pollLatency.record(latency);
  }

  void pollFailed(ImdsFailure.Kind kind) {
    polls.increment();
    imdsErrors.get(kind).increment();
  }

  void transition(TransitionType t) {
    transitions.get(t).increment();
  }

  /** An approval result was published. */
  public void approval(dev.sebridge.approval.ApprovalResult r) {
    commands(r.origin().label(), r.outcome().label(), r.reasonCode().label()).increment();
  }

  /** A rejected command counted in a summary instead of a result of its own. */
  void rejectionCounted(dev.sebridge.approval.ReasonCode code) {
    commands("command", "rejected", code.label()).increment();
  }

  private io.micrometer.core.instrument.Counter commands(
      String origin, String outcome, String reason) {
    return io.micrometer.core.instrument.Counter.builder("sebridge.commands")
        .description(
            "approval commands and policy approvals handled, by origin, outcome and reason")
        .tags("origin", origin, "outcome", outcome, "reason", reason)
        .register(registry);
  }

  void approvalDelay(Duration d) {
    approvalDelay.record(d);
  }
}
