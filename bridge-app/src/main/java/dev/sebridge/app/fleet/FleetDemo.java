package dev.sebridge.app.fleet;

import dev.sebridge.app.Signals;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import dev.sebridge.simulator.azure.LocalAzure;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code sebridge demo --fleet}: 24 simulated VMs in 3 zones and 2 scale sets, 22 with an agent, an
 * embedded broker, the fleet service and a local Azure ({@link LocalAzure}: Resource Graph, the
 * Maintenance API, Event Grid's deliveries), all on this machine. A host OS update reboots 12 VMs
 * (one Reboot event each), a Freeze covers 3 and a user Redeploy 1; a central policy approves the
 * Redeploy, the fleet CLI approves the Freeze for 2 chosen VMs and shows their results, then rolls
 * the Reboots out in waves, printing each. Then the 2 VMs without an agent get a Reboot each, which
 * only Azure's central delivery tells of: coverage shows them, and a rollout releases them through
 * the Maintenance API.
 */
public final class FleetDemo {
  /** The demo's central policies (docs/fleet.md, "Central policies"). */
  static final Map<String, String> POLICIES =
      Map.of(
          "fleet.policies.version", "1",
          "fleet.policies.rules.10-user-initiated.match.source", "User",
          "fleet.policies.rules.10-user-initiated.action", "approve",
          "fleet.policies.rules.20-short-freeze.match.type", "Freeze",
          "fleet.policies.rules.20-short-freeze.match.duration-under", "9s",
          "fleet.policies.rules.20-short-freeze.action", "approve",
          "fleet.policies.rules.20-short-freeze.dry-run", "true",
          "fleet.policies.rules.90-never-terminate.match.type", "Terminate,Preempt",
          "fleet.policies.rules.90-never-terminate.action", "never");

  /** The VMs that run no agent (by index): db-5 in zone 3 and db-6 in zone 1. */
  static final List<Integer> WITHOUT_AGENT = List.of(20, 21);

  private final PrintWriter out;
  private final Duration timeout;
  private final DemoConsole console;

  public FleetDemo(PrintWriter out, PrintWriter err, Duration timeout) {
    this.out = out;
    this.timeout = timeout;
    this.console = new DemoConsole(out, err, timeout);
  }

  /** Runs the demo; with {@code follow}, keeps everything up until Ctrl-C. */
  public int run(Path work, boolean follow) throws Exception {
    try (FleetLab lab = FleetLab.start(work, FleetLab.Options.demo());
        // Event Grid's deliveries as Azure's may come: twice, out of order, NotBefore's weekday
        // wrong (docs/fleet.md, "VMs without an agent").
        LocalAzure azure =
            new LocalAzure(lab.simulator(), this::withoutAgent, LocalAzure.Quirks.ALL)) {
      ImdsSimulator sim = lab.simulator();
      agentless = WITHOUT_AGENT.stream().map(i -> sim.vms().get(i).name()).toList();
      FleetService fleet =
          lab.startFleet("demo", DemoAzure.config(azure, POLICIES), DemoAzure::access);
      try (DemoAzure.Deliveries deliveries = new DemoAzure.Deliveries(lab, azure)) {
        return run(lab, sim, fleet, azure, work, follow);
      }
    }
  }

  private List<String> agentless = List.of();

  private boolean withoutAgent(String vmName) {
    return agentless.contains(vmName);
  }

  private int run(
      FleetLab lab,
      ImdsSimulator sim,
      FleetService fleet,
      LocalAzure azure,
      Path work,
      boolean follow)
      throws Exception {
    {
      lab.startAgents(
          Duration.ofMillis(500), Duration.ofSeconds(2), vm -> !withoutAgent(vm.name()));
      // Every agent's VM as Azure's inventory knows it (an envelope read before the inventory
      // was is stamped again with the agent's next heartbeat).
      for (SimVm vm : sim.vms()) {
        if (!withoutAgent(vm.name())) {
          console.awaitCondition(
              vm.name() + " known to the inventory",
              () ->
                  fleet
                      .views()
                      .vm(vm.vmId())
                      .filter(v -> v.inventory() == dev.sebridge.fleet.model.InventoryState.KNOWN)
                      .isPresent());
        }
      }
      String url = "http://127.0.0.1:" + fleet.port();
      Path token = work.resolve("approver.token");
      Files.writeString(token, FleetLab.APPROVER_TOKEN, StandardCharsets.UTF_8);
      out.printf(
          "sebridge demo --fleet: %d VMs in zones 1-3 (scale sets web and api, and standalone db),"
              + " an agent on each but %s,%n  an embedded Kafka broker, a local Azure (Resource"
              + " Graph, the Maintenance API, Event Grid), and the fleet service on %s%n"
              + "  with central policies: user-initiated events approved at once, Freezes under"
              + " 9 s the same as a dry run, Terminate and Preempt never.%n%n",
          sim.vms().size(), String.join(" and ", agentless), url);

      List<SimVm> rebooted = sim.vms().subList(0, 12);
      List<String> reboots = new ArrayList<>();
      for (SimVm vm : rebooted) {
        reboots.add(
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(vm.name()))
                    .withNotice(900)
                    .withStartedFor(2)
                    .withDescription("Host OS update")));
      }
      List<String> names = sim.vms().stream().map(SimVm::name).toList();
      String freeze =
          sim.addEvent(
              EventSpec.scheduled("Freeze", names.subList(16, 19))
                  .withNotice(900)
                  .withDuration(5)
                  .withStartedFor(2));
      String redeploy =
          sim.addEvent(
              EventSpec.scheduled("Redeploy", names.subList(23, 24))
                  .withNotice(900)
                  .withStartedFor(2)
                  .withSource("User"));
      out.println(
          "Azure schedules a host OS update that reboots 12 VMs (one Reboot event each), a Freeze"
              + " of 3 VMs and a user Redeploy:");
      for (String id : reboots) {
        console.await(fleet, id, e -> e.vms().size() == 1);
      }
      console.await(fleet, freeze, e -> e.vms().size() == 3);
      console.await(fleet, redeploy, e -> e.vms().size() == 1);
      String[] client = {"--url", url, "--token-file", token.toString()};
      console.cli(
          "fleet events --open --type Reboot",
          "fleet",
          "events",
          "--open",
          "--type",
          "Reboot",
          client[0],
          client[1],
          client[2],
          client[3]);

      out.println();
      out.println(
          "The policy for user-initiated events approves the Redeploy at once; the Freeze rule is a"
              + " dry run, so a person approves the Freeze, choosing 2 of its 3 VMs:");
      List<String> freezeVms =
          fleet.views().event(freeze).orElseThrow().vms().keySet().stream().limit(2).toList();
      if (console.cli(
              "fleet approve " + freeze + " --vm <2 vmIds> --reason 'demo: live migration'",
              "fleet",
              "approve",
              freeze,
              "--vm",
              freezeVms.get(0),
              "--vm",
              freezeVms.get(1),
              "--reason",
              "demo: live migration",
              "--wait",
              "60",
              client[0],
              client[1],
              client[2],
              client[3])
          != 0) {
        return 1;
      }
      out.println();
      out.println(
          "An approval releases an event for every VM it lists: all 3 VMs start the Freeze. The"
              + " Reboots are rolled out in waves, at most 2 VMs of a zone down at once:");
      List<String> rollout =
          new ArrayList<>(
              List.of(
                  "fleet",
                  "rollout",
                  "--max-unavailable",
                  "2",
                  "--group-by",
                  "zone",
                  "--settle",
                  "1s",
                  "--timeout",
                  "2m",
                  "--reason",
                  "demo: host OS update",
                  "--watch",
                  Long.toString(timeout.toSeconds())));
      rollout.addAll(reboots);
      rollout.addAll(List.of(client));
      if (console.cli(
              "fleet rollout <12 Reboot events> --max-unavailable 2 --group-by zone --settle 1s"
                  + " --timeout 2m --reason 'demo: host OS update'",
              rollout.toArray(String[]::new))
          != 0) {
        return 1;
      }
      console.await(fleet, freeze, e -> e.counts().getOrDefault("completed", 0) == 3);
      console.await(fleet, redeploy, e -> e.counts().getOrDefault("completed", 0) == 1);
      if (AgentlessDemo.run(console, fleet, sim, agentless, client) != 0) {
        return 1;
      }
      console.cli("fleet events", "fleet", "events", client[0], client[1], client[2], client[3]);
      out.println();
      if (follow) {
        // Open for an hour, to try approvals and rollouts on: zone = (index % 3) + 1.
        List<String> all = sim.vms().stream().map(SimVm::name).toList();
        String zone1 =
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(all.get(0), all.get(3), all.get(6)))
                    .withNotice(3600)
                    .withStartedFor(2)
                    .withDescription("Host OS update"));
        String zone2a =
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(all.get(1)))
                    .withNotice(3600)
                    .withStartedFor(2));
        String zone2b =
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(all.get(4)))
                    .withNotice(3600)
                    .withStartedFor(2));
        String zone3 =
            sim.addEvent(
                EventSpec.scheduled("Reboot", List.of(all.get(2), all.get(5)))
                    .withNotice(3600)
                    .withStartedFor(2));
        console.await(fleet, zone1, e -> e.vms().size() == 3);
        console.await(fleet, zone3, e -> e.vms().size() == 2);
        out.printf(
            "Open for an hour, to try: %s (a 3-VM Reboot in zone 1), %s and %s (one VM each,"
                + " zone 2), %s (2 VMs, zone 3).%n"
                + "The IMDS simulator: %s/control/state shows what it serves and which VMs it"
                + " released (StartRequests);%n  POST %s/control/events schedules more"
                + " (README, \"The simulator\").%n",
            zone1, zone2a, zone2b, zone3, sim.baseUri(), sim.baseUri());
        out.printf(
            "The fleet service keeps running: open %s/ui/ in a browser and sign in with the"
                + " approver token %s (or the reader token %s).%n"
                + "Try: SEBRIDGE_FLEET_URL=%s SEBRIDGE_FLEET_TOKEN=%s sebridge fleet events --open%n"
                + "Ctrl-C stops it.%n",
            url, FleetLab.APPROVER_TOKEN, FleetLab.READER_TOKEN, url, FleetLab.APPROVER_TOKEN);
        out.flush();
        Signals.Termination t = Signals.install(Duration.ofSeconds(30));
        try {
          t.await();
        } finally {
          t.stopped();
        }
      }
      return 0;
    }
  }
}
