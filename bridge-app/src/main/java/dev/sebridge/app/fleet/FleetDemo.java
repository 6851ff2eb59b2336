package dev.sebridge.app.fleet;

import dev.sebridge.app.Main;
import dev.sebridge.app.Signals;
import dev.sebridge.fleet.FleetService;
import dev.sebridge.fleet.model.EventView;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.SimVm;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * {@code sebridge demo --fleet}: 24 simulated VMs in 3 zones and 2 scale sets, one agent each, an
 * embedded broker and the fleet service, all on this machine. A host OS update reboots 12 VMs (one
 * Reboot event each), a Freeze covers 3 and a user Redeploy 1; a central policy approves the
 * Redeploy, the fleet CLI approves the Freeze for 2 chosen VMs and shows their results, then rolls
 * the Reboots out in waves, printing each.
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

  private final PrintWriter out;
  private final PrintWriter err;
  private final Duration timeout;

  public FleetDemo(PrintWriter out, PrintWriter err, Duration timeout) {
    this.out = out;
    this.err = err;
    this.timeout = timeout;
  }

  /** Runs the demo; with {@code follow}, keeps everything up until Ctrl-C. */
  public int run(Path work, boolean follow) throws Exception {
    try (FleetLab lab = FleetLab.start(work, FleetLab.Options.demo())) {
      ImdsSimulator sim = lab.simulator();
      FleetService fleet = lab.startFleet("demo", POLICIES);
      lab.startAgents(Duration.ofMillis(500), Duration.ofSeconds(2));
      String url = "http://127.0.0.1:" + fleet.port();
      Path token = work.resolve("approver.token");
      Files.writeString(token, FleetLab.APPROVER_TOKEN, StandardCharsets.UTF_8);
      out.printf(
          "sebridge demo --fleet: %d VMs in zones 1-3 (scale sets web and api, and standalone db),"
              + " one agent each,%n  an embedded Kafka broker, and the fleet service on %s"
              + " with central policies:%n  user-initiated events approved at once, Freezes under"
              + " 9 s the same as a dry run, Terminate and Preempt never.%n%n",
          sim.vms().size(), url);

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
        await(fleet, id, e -> e.vms().size() == 1);
      }
      await(fleet, freeze, e -> e.vms().size() == 3);
      await(fleet, redeploy, e -> e.vms().size() == 1);
      String[] client = {"--url", url, "--token-file", token.toString()};
      cli(
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
      if (cli(
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
      if (cli(
              "fleet rollout <12 Reboot events> --max-unavailable 2 --group-by zone --settle 1s"
                  + " --timeout 2m --reason 'demo: host OS update'",
              rollout.toArray(String[]::new))
          != 0) {
        return 1;
      }
      await(fleet, freeze, e -> e.counts().getOrDefault("completed", 0) == 3);
      await(fleet, redeploy, e -> e.counts().getOrDefault("completed", 0) == 1);
      cli("fleet events", "fleet", "events", client[0], client[1], client[2], client[3]);
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
        await(fleet, zone1, e -> e.vms().size() == 3);
        await(fleet, zone3, e -> e.vms().size() == 2);
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

  /** Shows {@code $ sebridge <shown>}, then runs the command line {@code args}. */
  private int cli(String shown, String... args) {
    out.println();
    out.println("$ sebridge " + shown);
    out.flush();
    return Main.execute(out, err, args);
  }

  /** Waits (polling the view every 100 ms) until the event's view satisfies {@code done}. */
  private void await(FleetService fleet, String eventId, Predicate<EventView> done)
      throws Exception {
    CompletableFuture<Void> reached = new CompletableFuture<>();
    ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor();
    try {
      poll.scheduleWithFixedDelay(
          () -> {
            try {
              if (fleet.views().event(eventId).filter(done).isPresent()) {
                reached.complete(null);
              }
            } catch (RuntimeException storesNotReadyYet) {
              // a rebalance: next time
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
      reached.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "demo: event " + eventId + " did not get there in " + timeout, e);
    } finally {
      poll.shutdownNow();
    }
  }
}
