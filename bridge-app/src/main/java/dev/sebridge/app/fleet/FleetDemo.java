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
 * embedded broker and the fleet service, all on this machine. A platform Reboot covers 12 VMs, a
 * Freeze 3 and a user Redeploy 1; the fleet CLI shows them, approves the Reboot for 4 VMs and shows
 * their results, then the completions.
 */
public final class FleetDemo {
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
      FleetService fleet = lab.startFleet("demo", Map.of());
      lab.startAgents(Duration.ofMillis(500), Duration.ofSeconds(30));
      String url = "http://127.0.0.1:" + fleet.port();
      Path token = work.resolve("approver.token");
      Files.writeString(token, FleetLab.APPROVER_TOKEN, StandardCharsets.UTF_8);
      out.printf(
          "sebridge demo --fleet: %d VMs in zones 1-3 (scale sets web and api, and standalone db),"
              + " one agent each,%n  an embedded Kafka broker, and the fleet service on %s.%n%n",
          sim.vms().size(), url);

      List<String> names = sim.vms().stream().map(SimVm::name).toList();
      String reboot =
          sim.addEvent(
              EventSpec.scheduled("Reboot", names.subList(0, 12))
                  .withNotice(900)
                  .withStartedFor(5)
                  .withDescription("Host OS update"));
      String freeze =
          sim.addEvent(
              EventSpec.scheduled("Freeze", names.subList(16, 19)).withNotice(900).withDuration(9));
      String redeploy =
          sim.addEvent(
              EventSpec.scheduled("Redeploy", names.subList(23, 24))
                  .withNotice(900)
                  .withSource("User"));
      out.println(
          "Azure schedules a platform Reboot of 12 VMs, a Freeze of 3 and a user Redeploy:");
      await(fleet, reboot, e -> e.vms().size() == 12);
      await(fleet, freeze, e -> e.vms().size() == 3);
      await(fleet, redeploy, e -> e.vms().size() == 1);
      String[] client = {"--url", url, "--token-file", token.toString()};
      cli(
          "fleet events --open",
          "fleet",
          "events",
          "--open",
          client[0],
          client[1],
          client[2],
          client[3]);

      List<String> four =
          sim.vms().subList(0, 12).stream()
              .filter(v -> List.of("1", "2", "3").contains(v.zone()))
              .limit(4)
              .map(SimVm::vmId)
              .toList();
      String[] approve = {
        "fleet",
        "approve",
        reboot,
        "--vm",
        four.get(0),
        "--vm",
        four.get(1),
        "--vm",
        four.get(2),
        "--vm",
        four.get(3),
        "--reason",
        "demo: patch window",
        "--wait",
        "60",
        client[0],
        client[1],
        client[2],
        client[3]
      };
      if (cli("fleet approve " + reboot + " --vm <4 vmIds> --reason 'demo: patch window'", approve)
          != 0) {
        return 1;
      }
      out.println();
      out.println(
          "An approval releases the event for every VM it lists; the agents report it Started,"
              + " then Completed:");
      await(fleet, reboot, e -> e.counts().getOrDefault("completed", 0) == 12);
      cli("fleet events", "fleet", "events", client[0], client[1], client[2], client[3]);
      out.println();
      if (follow) {
        out.printf(
            "The fleet service keeps running: %s (token %s, reader token %s).%n"
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
