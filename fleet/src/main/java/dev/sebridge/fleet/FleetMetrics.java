package dev.sebridge.fleet;

import dev.sebridge.fleet.api.FleetViews;
import dev.sebridge.fleet.streams.SkipAndCount;
import dev.sebridge.fleet.streams.TopologyObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fleet service's Prometheus metrics ({@code /metrics}): open events, silent agents, approval
 * results by outcome, time from Scheduled to approval, view lag (now minus the newest applied
 * envelope's time), and records skipped by kind. Open events, silent agents and the outcomes are
 * tallied as the views change ({@link ViewTallies}); the VM count is the store's size.
 */
public final class FleetMetrics implements TopologyObserver {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Clock clock;
  private final AtomicReference<Instant> newestApplied = new AtomicReference<>();
  private final Timer approvalDelay;
  private final Timer viewDelay;
  private final Timer rolloutsTick;
  private final MultiGauge outcomes;
  private final java.util.concurrent.atomic.AtomicInteger replaying =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger held =
      new java.util.concurrent.atomic.AtomicInteger();
  private final Counter misrouted;
  private final Counter threadsReplaced;
  private volatile FleetViews views;
  private volatile ViewTallies tallies;

  public FleetMetrics(Clock clock) {
    this.clock = clock;
    misrouted =
        Counter.builder("sebridge.fleet.misrouted.commands")
            .description(
                "Records of the commands topic on a partition their VM's agent does not read")
            .register(registry);
    threadsReplaced =
        Counter.builder("sebridge.fleet.stream.threads.replaced")
            .description("Stream threads that failed with an exception nothing handled, replaced")
            .register(registry);
    Gauge.builder("sebridge.fleet.open.events", this, m -> m.tallied(ViewTallies::openEvents))
        .description("Events some VM has not finished")
        .register(registry);
    Gauge.builder("sebridge.fleet.vms", this, FleetMetrics::vms)
        .description("VMs whose agents the fleet service has heard from")
        .register(registry);
    Gauge.builder("sebridge.fleet.silent.agents", this, m -> m.tallied(ViewTallies::silentCount))
        .description("Agents that sent nothing for fleet.silent-after heartbeat intervals")
        .register(registry);
    Gauge.builder(
            "sebridge.fleet.rollouts.replaying",
            replaying,
            java.util.concurrent.atomic.AtomicInteger::get)
        .description(
            "1 while the rollouts task on this instance reads the rollouts topic up to where it"
                + " stood when the task started: nothing is stepped or released meanwhile")
        .register(registry);
    Gauge.builder(
            "sebridge.fleet.rollouts.held", held, java.util.concurrent.atomic.AtomicInteger::get)
        .description(
            "1 while the rollouts task on this instance holds rollouts and policies because its"
                + " global views are too far behind their topics: nothing is released meanwhile")
        .register(registry);
    Gauge.builder("sebridge.fleet.view.lag", this, FleetMetrics::lagSeconds)
        .description("Now minus the time of the newest envelope applied to the views")
        .baseUnit("seconds")
        .register(registry);
    viewDelay =
        Timer.builder("sebridge.fleet.view.delay")
            .description(
                "From an envelope's time to the VM's view with it being queryable (p50, p99 over"
                    + " the last minutes)")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofMinutes(2))
            .register(registry);
    rolloutsTick =
        Timer.builder("sebridge.fleet.rollouts.tick")
            .description(
                "The rollouts task's tick on this instance, every second: the ledger moved on, every"
                    + " active rollout stepped, the policies' pass (p50, p99 over the last minutes)")
            .publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofMinutes(2))
            .register(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    approvalDelay =
        Timer.builder("sebridge.fleet.approval.delay")
            .description("From a VM reporting an event Scheduled to its approval being accepted")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofSeconds(1))
            .maximumExpectedValue(Duration.ofDays(2))
            .register(registry);
    outcomes =
        MultiGauge.builder("sebridge.fleet.approval.results")
            .description("Agents' results for the fleet service's commands, by outcome")
            .register(registry);
  }

  /**
   * {@code sebridge_fleet_rollouts_owner}: 1 on the instance that runs the rollouts task now (it
   * decides every release, and writes Azure's inventory), 0 on the others.
   */
  public void rolloutsOwner(java.util.function.BooleanSupplier owner) {
    Gauge.builder("sebridge.fleet.rollouts.owner", owner, o -> o.getAsBoolean() ? 1 : 0)
        .strongReference(true) // (a method reference nothing else holds)
        .description(
            "1 on the instance that runs the rollouts task (every release is decided there, and"
                + " Azure's inventory written), 0 on the others")
        .register(registry);
  }

  /**
   * Azure's inventory's gauges (nothing without one): {@code sebridge_fleet_unknown_vms}, the VMs
   * the inventory lists, those without an agent, and the age of this instance's last good read.
   */
  public void inventory(
      dev.sebridge.fleet.inventory.Coverage coverage,
      java.util.function.Supplier<Instant> refreshedAt) {
    if (coverage == null) {
      return;
    }
    Gauge.builder("sebridge.fleet.unknown.vms", coverage, c -> c.counts().unknown())
        .description(
            "Agents reporting a vmId Azure's inventory does not list: counted in no group, never"
                + " back")
        .register(registry);
    Gauge.builder("sebridge.fleet.inventory.vms", coverage, c -> c.counts().inventory())
        .description("VMs Azure's inventory lists")
        .register(registry);
    Gauge.builder(
            "sebridge.fleet.inventory.without.agent", coverage, c -> c.counts().withoutAgent())
        .description("VMs Azure's inventory lists that no agent reports from")
        .register(registry);
    Gauge.builder(
            "sebridge.fleet.inventory.age",
            refreshedAt,
            r -> {
              Instant t = r.get();
              return t == null
                  ? Double.NaN
                  : Duration.between(t, clock.instant()).toMillis() / 1000.0;
            })
        .description("Since this instance last read Azure's inventory whole")
        .baseUnit("seconds")
        // The supplier is a method reference nothing else holds: weakly held (Micrometer's
        // default), it was collected with the first full GC and the gauge read NaN for good.
        .strongReference(true)
        .register(registry);
  }

  /**
   * The views (the VM count, and whether they can be read) and the tallies kept as they change
   * (open events, silent agents, approval outcomes): a scrape deserialises no view.
   */
  public void views(FleetViews views, ViewTallies tallies) {
    this.tallies = tallies;
    this.views = views;
  }

  @Override
  public void applied(Instant envelopeTime) {
    Duration d = Duration.between(envelopeTime, clock.instant());
    viewDelay.record(d.isNegative() ? Duration.ZERO : d);
    newestApplied.accumulateAndGet(envelopeTime, (a, b) -> a == null || b.isAfter(a) ? b : a);
  }

  @Override
  public void approvedAfter(Duration sinceScheduled) {
    approvalDelay.record(sinceScheduled.isNegative() ? Duration.ZERO : sinceScheduled);
  }

  @Override
  public void rolloutsTicked(Duration took) {
    rolloutsTick.record(took);
  }

  /**
   * An event both sources now reported: counted by who was first ({@code
   * sebridge_fleet_first_seen_total{by}}) and by how much ({@code
   * sebridge_fleet_seen_first_lead_seconds{by}}; clocks that disagree give 0, not a negative lead).
   */
  @Override
  public void seenByBoth(dev.sebridge.fleet.model.Source first, Duration lead) {
    String by = first.json();
    Counter.builder("sebridge.fleet.first.seen")
        .description("Events both agents and Azure's central delivery reported, by who was first")
        .tag("by", by)
        .register(registry)
        .increment();
    Timer.builder("sebridge.fleet.seen.first.lead")
        .description(
            "How long before the other source the first one reported an event (agents: their"
                + " lead over Azure's central delivery)")
        .tag("by", by)
        .publishPercentiles(0.5, 0.99)
        .register(registry)
        .record(lead.isNegative() ? Duration.ZERO : lead);
  }

  @Override
  public void misrouted() {
    misrouted.increment();
  }

  @Override
  public void rolloutsReplaying(boolean replaying) {
    this.replaying.set(replaying ? 1 : 0);
  }

  @Override
  public void rolloutsHeld(boolean held) {
    this.held.set(held ? 1 : 0);
  }

  /**
   * VMs without an agent an approval acknowledged for through Azure's Maintenance API, by outcome
   * ({@code sebridge_fleet_acknowledgements_total{outcome}}).
   */
  public void acknowledged(String outcome, int vms) {
    Counter.builder("sebridge.fleet.acknowledgements")
        .description(
            "VMs without an agent approvals were acknowledged for through Azure's Maintenance API,"
                + " by outcome")
        .tag("outcome", outcome)
        .register(registry)
        .increment(vms);
  }

  /**
   * Whether the acknowledger reads orders ({@code sebridge_fleet_acknowledger_up}, 0 while it makes
   * its Kafka clients again after a failure).
   */
  public void acknowledger(java.util.function.BooleanSupplier healthy) {
    io.micrometer.core.instrument.Gauge.builder(
            "sebridge.fleet.acknowledger.up", () -> healthy.getAsBoolean() ? 1 : 0)
        .description("1 while the acknowledger reads orders (fleet.acknowledge.enabled)")
        .register(registry);
  }

  /** A stream thread failed and was replaced. */
  public void threadReplaced() {
    threadsReplaced.increment();
  }

  /** Counts an HTTP answer (kept small: by route family and status). */
  public Counter http(String route, int status) {
    return Counter.builder("sebridge.fleet.http.requests")
        .tags(Tags.of("route", route, "status", Integer.toString(status)))
        .register(registry);
  }

  /** The newest applied envelope's time, if any was applied. */
  public Instant newestApplied() {
    return newestApplied.get();
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    refreshMultiGauges();
    return registry.scrape();
  }

  private void refreshMultiGauges() {
    SkipAndCount.counts()
        .forEach(
            (kind, count) ->
                FunctionCounter.builder("sebridge.fleet.skipped.records", count, AtomicLong::get)
                    .description("Records the fleet service could not read or apply, by kind")
                    .tag("kind", kind)
                    .register(registry));
    ViewTallies t = tallies;
    if (t == null || Double.isNaN(vms())) {
      return; // the views cannot be read (the streams rebalance or stopped): keep the last values
    }
    Map<String, Long> byOutcome = t.outcomes();
    outcomes.register(
        byOutcome.entrySet().stream()
            .map(e -> MultiGauge.Row.of(Tags.of("outcome", e.getKey()), e.getValue()))
            .toList(),
        true);
  }

  private double lagSeconds() {
    Instant t = newestApplied.get();
    return t == null ? Double.NaN : Duration.between(t, clock.instant()).toMillis() / 1000.0;
  }

  /**
   * A tally, while the views it follows can be read: an instance whose streams stopped shows NaN,
   * as the gauges read from the stores do, never its last tally as if current.
   */
  private double tallied(java.util.function.ToIntFunction<ViewTallies> count) {
    ViewTallies t = tallies;
    return t == null || Double.isNaN(vms()) ? Double.NaN : count.applyAsInt(t);
  }

  private double vms() {
    FleetViews v = views;
    if (v == null) {
      return Double.NaN;
    }
    try {
      return v.vmCount();
    } catch (RuntimeException notReady) {
      return Double.NaN;
    }
  }
}
