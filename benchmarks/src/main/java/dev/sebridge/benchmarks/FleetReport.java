package dev.sebridge.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Collects the fleet benchmark's results and writes benchmarks/FLEET-REPORT.md. */
final class FleetReport {
  private final List<String> results = new ArrayList<>();
  private final List<String> targets = new ArrayList<>();

  private void target(String what, String target, String measured, boolean pass) {
    targets.add(Report.targetRow(what, target, measured, pass));
  }

  void firstLoad(Duration d) {
    results.add(
        "- First load: one heartbeat from every VM written at once, until the API lists them all: "
            + d.toMillis()
            + " ms.");
  }

  void steady(double rate, double p50Ms, double p99Ms, double maxHeapBytes, long maxRssKib) {
    results.add(
        String.format(
            "- Steady state: %.0f envelopes/s (heartbeats every 60 s per VM, 2 %% of the VMs in"
                + " maintenance). View delay (envelope time to the VM's view being queryable, the"
                + " service's own `sebridge_fleet_view_delay_seconds`, last 2 minutes): p50 %.1f ms,"
                + " p99 %.1f ms. Heap used at most %.0f MiB; RSS at most %.0f MiB (sampled every 5 s).",
            rate, p50Ms, p99Ms, maxHeapBytes / 1048576, maxRssKib / 1024.0));
    target(
        "view delay p99 at fleet rate", "<= 1 s", String.format("%.1f ms", p99Ms), p99Ms <= 1000);
    target(
        "fleet service RSS",
        "<= 512 MiB",
        String.format("%.0f MiB", maxRssKib / 1024.0),
        maxRssKib / 1024.0 <= 512);
  }

  void rebuild(Duration d) {
    results.add(
        "- Restart: a new process rebuilds every store and view from the changelogs and view"
            + " topics; until the API lists every VM: "
            + d.toMillis()
            + " ms (JVM start included).");
    target(
        "rebuild after restart",
        "<= 30 s",
        d.toMillis() + " ms",
        d.compareTo(Duration.ofSeconds(30)) <= 0);
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
  static String heading(int vms, boolean inventory) {
    return String.format("## Fleet at %,d VMs", vms) + (inventory ? " with Azure's inventory" : "");
  }

  /** This run's section of FLEET-REPORT.md (a run at another size has its own beside it). */
  String markdown(int vms, int steadySeconds, int agents, boolean inventory) {
    StringBuilder b = new StringBuilder();
    b.append(heading(vms, inventory))
        .append("\n\nWritten by `benchmarks/run-fleet.sh --vms ")
        .append(vms)
        .append(inventory ? " --inventory" : "")
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
            " real agents. One embedded Kafka broker (KRaft) on loopback; the fleet service as its"
                + " own process with the launcher's settings (`-XX:+UseG1GC -Xmx512m`).")
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
