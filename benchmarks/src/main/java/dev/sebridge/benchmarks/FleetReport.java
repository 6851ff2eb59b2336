package dev.sebridge.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the fleet benchmark's results and writes benchmarks/FLEET-REPORT.md. From 100,000 VMs
 * the targets are issue 29's for that size (RSS 1 GiB, rebuild 60 s); below it, the 10,000-VM ones.
 */
final class FleetReport {
  private final List<String> results = new ArrayList<>();
  private final List<String> targets = new ArrayList<>();
  private final boolean large;

  FleetReport(int vms) {
    this.large = vms >= 100_000;
  }

  private void target(String what, String target, String measured, boolean pass) {
    targets.add(Report.targetRow(what, target, measured, pass));
  }

  void firstLoad(Duration d) {
    results.add(
        "- First load: one heartbeat from every VM written at once, until the API lists them all: "
            + d.toMillis()
            + " ms.");
  }

  void closedHistory(int events, Duration d) {
    results.add(
        String.format(
            "- Closed history: %,d one-VM events written scheduled, started and completed after the"
                + " first load, %,d a second, until the API lists them all closed: %d ms. The"
                + " views keep them"
                + " (`fleet.closed-retention`, 24 h) through everything below.",
            events, ClosedHistory.RATE, d.toMillis()));
  }

  void steady(
      double rate, boolean waves, double p50Ms, double p99Ms, double maxHeapBytes, long maxRssKib) {
    results.add(
        String.format(
            "- Steady state: %.0f envelopes/s (heartbeats every 60 s per VM, 2 %% of the VMs in"
                + " maintenance, in events of 1 to 50 VMs that move on "
                + (waves
                    ? "all at once every 20 s, a wave of transitions"
                    : "each by its own clock, every 10 to 30 s")
                + "). View delay (envelope time to the VM's view being queryable, the"
                + " service's own `sebridge_fleet_view_delay_seconds`, last 2 minutes): p50 %.1f ms,"
                + " p99 %.1f ms. Heap used at most %.0f MiB; RSS at most %.0f MiB (sampled every 5 s).",
            rate,
            p50Ms,
            p99Ms,
            maxHeapBytes / 1048576,
            maxRssKib / 1024.0));
    target(
        "view delay p99 at fleet rate", "<= 1 s", String.format("%.1f ms", p99Ms), p99Ms <= 1000);
    rssKib = maxRssKib;
  }

  private long rssKib;

  /** Instances 2 to {@code n} of the same application joined, until each listed every VM. */
  void joined(int n, Duration d) {
    results.add(
        String.format(
            "- %d instances of one application: the other %d started after the first load, until"
                + " each listed every VM: %d ms. Each holds the global views whole. They are"
                + " stopped before the restart below, which is of one instance as in a run of one.",
            n, n - 1, d.toMillis()));
    instances = n;
  }

  private int instances = 1;

  /** The RSS of each instance, at most, from the steady window on. */
  void rssEach(long[] kib) {
    StringBuilder b = new StringBuilder("- RSS of each instance at most:");
    for (int i = 0; i < kib.length; i++) {
      b.append(i == 0 ? " " : ", ").append(String.format("%.0f MiB", kib[i] / 1024.0));
    }
    results.add(b.append(apiFootprint ? " (the first one took the API's load)." : ".").toString());
  }

  /** The RSS target, over the steady window and (when it ran) the API's load after it. */
  void rss() {
    String what =
        (apiFootprint ? "fleet service RSS, the API's load included" : "fleet service RSS")
            + (instances > 1 ? ", each of " + instances + " instances" : "");
    int rssTarget = large ? 1024 : 512;
    target(
        what,
        "<= " + rssTarget + " MiB",
        String.format("%.0f MiB", rssKib / 1024.0),
        rssKib / 1024.0 <= rssTarget);
  }

  /** Heap and RSS at most from the steady window to the end of the API's load. */
  void footprintWithApi(double maxHeapBytes, long maxRssKib) {
    results.add(
        String.format(
            "- From the steady window to the end of the API's load: heap used at most %.0f MiB,"
                + " RSS at most %.0f MiB.",
            maxHeapBytes / 1048576, maxRssKib / 1024.0));
    rssKib = maxRssKib;
    apiFootprint = true;
  }

  private boolean apiFootprint;

  void rebuild(Duration d, TopicBytes read) {
    results.add(
        "- Restart: a new process rebuilds every store and view from the changelogs and view"
            + " topics; until the API lists every VM: "
            + d.toMillis()
            + " ms (JVM start included). What it reads whole, on the broker at the restart: "
            + read
            + ".");
    Duration target = Duration.ofSeconds(large ? 60 : 30);
    target(
        "rebuild after restart",
        "<= " + target.toSeconds() + " s",
        d.toMillis() + " ms",
        d.compareTo(target) <= 0);
  }

  void thousandCommands(Duration d, Duration api) {
    results.add(
        "- One event of 1,000 VMs approved with one API call: from the call to all 1,000 signed"
            + " commands committed on the commands topic: "
            + d.toMillis()
            + " ms (the API answered 202, the request audited, after "
            + api.toMillis()
            + " ms).");
    target(
        "sign and produce 1,000 commands",
        "<= 2 s",
        d.toMillis() + " ms",
        d.compareTo(Duration.ofSeconds(2)) <= 0);
  }

  /**
   * The API under load ({@link ApiLoad}): {@code quiet} with the live streams open, {@code
   * attacked} with the slow-loris connections too.
   */
  void api(
      int rate,
      int streams,
      int streamsOpen,
      int streamsAtEnd,
      int streamsRefused,
      int streamLines,
      int loris,
      int lorisOpened,
      ApiLoad.Phase quiet,
      ApiLoad.Phase attacked) {
    results.add(
        String.format(
            "- API under load, after a warm-up of up to 20 s not counted: %d reads a second,"
                + " open-loop (latency from when each was due): a"
                + " quarter the open events' first page of 50, a sixth those of one zone, a fifth"
                + " the VMs' first page of 50, a quarter one VM, the rest one event; `/healthz` ten"
                + " times a second beside them; %d of %d live pages open (%d principals"
                + " signed in through the form, %d pages each; %d refused), %d still open at the"
                + " end, %d lines received on their streams; each page fetches the sections its"
                + " stream says changed, as the page's htmx does (`silent` and `coverage` at most"
                + " once in 2 s).",
            rate,
            streamsOpen,
            streams,
            streams / FleetApiPhases.LIVE_STREAMS_EACH,
            FleetApiPhases.LIVE_STREAMS_EACH,
            streamsRefused,
            streamsAtEnd,
            streamLines));
    results.add(phase("  - with the live streams", quiet));
    results.add(
        phase(
            String.format(
                "  - and %d slow-loris connections (a 64 KiB `POST /ui/login` body announced with"
                    + " the sign-in form's cookie, none sent; each one the server closed opened"
                    + " again: %d opened in all)",
                loris, lorisOpened),
            attacked));

    double p99 = quiet.reads().percentile(99);
    target(
        "API p99, " + rate + " reads/s, " + streams + " live pages",
        "<= 100 ms",
        String.format("%.1f ms", p99),
        p99 <= 100 && quiet.failed() == 0 && streamsOpen == streams && streamsAtEnd == streams);
    double attackedP99 = attacked.reads().percentile(99);
    target(
        "API p99 with " + loris + " slow-loris connections",
        String.format("<= 2 x %.1f ms", p99),
        String.format("%.1f ms", attackedP99),
        attackedP99 <= 2 * p99 && attacked.failed() == 0);
    double probe = quiet.probes().percentile(99);
    double attackedProbe = attacked.probes().percentile(99);
    target(
        "/healthz p99 with " + loris + " slow-loris connections",
        String.format("<= 2 x %.1f ms", probe),
        String.format("%.1f ms", attackedProbe),
        attackedProbe <= 2 * probe && quiet.probesFailed() + attacked.probesFailed() == 0);
  }

  private static String phase(String what, ApiLoad.Phase p) {
    return String.format(
        "%s: reads %s; `/healthz` %s; reads failed or timed out %d (never in the figures),"
            + " probes %d%s; %d reads answered 404 (an event dropped meanwhile); the live pages'"
            + " section fetches (from the stream's line to the fragment) %s, %d failed%s; this"
            + " machine's established connections to the server at most %s (sampled every 250"
            + " ms, at the clients' end).",
        what,
        p.reads().summary(),
        p.probes().summary(),
        p.failed(),
        p.probesFailed(),
        p.failures().isEmpty() ? "" : " (what failed: " + p.failures() + ")",
        p.notFound(),
        p.fragments().ms().summary(),
        p.fragments().failed(),
        p.fragments().causes().isEmpty() ? "" : " (" + p.fragments().causes() + ")",
        p.mostConnections() < 0 ? "not known" : Integer.toString(p.mostConnections()));
  }

  /** Connections the service closed at the per-address cap, from its start to its stop. */
  void closedAtCap(long closed) {
    results.add(
        "- Connections the service closed as they opened, their address holding its share of the"
            + " cap already, from its start to its stop (its log): "
            + closed
            + ".");
  }

  void realAgents(int agents, Stats delay, long postedOnce, long oneCommandId, long accepted) {
    results.add(
        "- "
            + agents
            + " real agents, one event listing all of them, approved with one API call: approval"
            + " delay (API call to the simulator receiving the VM's StartRequests) "
            + delay.summary()
            + "; "
            + postedOnce
            + " VMs posted exactly once, "
            + oneCommandId
            + " received exactly one command id, "
            + accepted
            + " results `accepted`.");
    boolean once = postedOnce == agents && oneCommandId == agents && accepted == agents;
    target(
        agents + " agents: every command applied once",
        "all " + agents,
        postedOnce + " / " + oneCommandId + " / " + accepted,
        once);
    target(
        agents + " agents: approval p99",
        "<= 2 s",
        String.format("%.0f ms", delay.percentile(99)),
        delay.percentile(99) <= 2000);
  }

  /**
   * The heading of the section a run at this many VMs writes (one per fleet size, and one more with
   * Azure's inventory).
   */
  static String heading(int vms, boolean inventory, boolean waves, int instances) {
    return String.format("## Fleet at %,d VMs", vms)
        + (inventory ? " with Azure's inventory" : "")
        + (waves ? ", maintenance in waves" : "")
        + (instances > 1 ? ", " + instances + " instances" : "");
  }

  /** This run's section of FLEET-REPORT.md (a run at another size has its own beside it). */
  String markdown(
      int vms,
      int steadySeconds,
      int agents,
      int apiSeconds,
      boolean inventory,
      boolean waves,
      int instances,
      String heap) {
    StringBuilder b = new StringBuilder();
    b.append(heading(vms, inventory, waves, instances))
        .append("\n\nWritten by `benchmarks/run-fleet.sh --vms ")
        .append(vms)
        .append(inventory ? " --inventory" : "")
        .append(waves ? " --maintenance-waves" : "")
        .append(instances > 1 ? " --instances " + instances : "")
        .append(steadySeconds == 180 ? "" : " --steady-seconds " + steadySeconds)
        .append(agents == 100 ? "" : " --agents " + agents)
        .append(apiSeconds == 60 ? "" : " --api-seconds " + apiSeconds)
        .append(heap.equals(FleetProcess.LAUNCHER_HEAP) ? "" : " --fleet-heap " + heap)
        .append("` on ")
        .append(Instant.now())
        .append(" (")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" CPUs). ")
        .append(String.format("%,d", vms))
        .append(" generated VMs, a ")
        .append(steadySeconds)
        .append(" s steady window, then ")
        .append(agents)
        .append(
            " real agents. One embedded Kafka broker (KRaft) on loopback, flushing as Kafka does"
                + " by default (the OS writes the log out, no fsync after each record); every topic"
                + " at replication factor 1, so `acks=all` is one replica's and replication's cost"
                + " is not measured; the fleet service as its own process with the launcher's settings (`-XX:+UseG1GC -Xmx")
        .append(heap)
        .append(heap.equals(FleetProcess.LAUNCHER_HEAP) ? "`)" : "`, the launcher's heap raised)")
        .append(
            ", and `fleet.http.max-connections` 16,384 instead of 4,096: the benchmark's clients"
                + " all come from one address, which may hold a sixteenth of the cap (1,024), and"
                + " its HTTP client opens a connection for every fetch under way where 200"
                + " browsers would hold 6 each at as many addresses.")
        .append(
            inventory
                ? " The service holds an inventory of every generated VM (written to"
                    + " `sebridge-fleet-inventory` by the benchmark; its own Resource Graph reads"
                    + " fail, write nothing, and are tried again every 30 s): every view stamped,"
                    + " the coverage counted."
                : "")
        .append("\n\n")
        .append("| measure | target | measured | |\n|---|---|---|---|\n");
    targets.forEach(t -> b.append(t).append('\n'));
    b.append("\n### Results\n\n");
    results.forEach(r -> b.append(r).append('\n'));
    return b.toString();
  }
}
