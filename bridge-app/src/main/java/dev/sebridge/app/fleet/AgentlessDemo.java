package dev.sebridge.app.fleet;

import dev.sebridge.fleet.FleetService;
import dev.sebridge.simulator.EventSpec;
import dev.sebridge.simulator.ImdsSimulator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The fleet demo's VMs without an agent ({@link FleetDemo#WITHOUT_AGENT}). */
final class AgentlessDemo {
  private AgentlessDemo() {}

  /**
   * The VMs without an agent: a Reboot each, which only Azure's central delivery tells of; the
   * inventory places them in their zones, and a rollout acknowledges their events through the
   * Maintenance API, which starts them as an approval through IMDS would.
   */
  static int run(
      DemoConsole console,
      FleetService fleet,
      ImdsSimulator sim,
      List<String> agentless,
      String[] client)
      throws Exception {
    PrintWriter out = console.out();
    out.println();
    out.printf(
        "%s run no agent. Azure's central delivery (Event Grid) tells of a Reboot of each, and"
            + " Azure's inventory (Resource Graph)%n  says where they are:%n",
        String.join(" and ", agentless));
    List<String> events = new ArrayList<>();
    for (String vm : agentless) {
      events.add(
          sim.addEvent(
              EventSpec.scheduled("Reboot", List.of(vm))
                  .withNotice(900)
                  .withStartedFor(2)
                  .withDescription("Host OS update")));
    }
    for (String id : events) {
      console.await(
          fleet,
          id,
          e ->
              e.central() != null
                  && e.central().status()
                      == dev.sebridge.fleet.agentless.AzureEventStatus.SCHEDULED);
    }
    console.cli(
        "fleet vms --coverage",
        "fleet",
        "vms",
        "--coverage",
        client[0],
        client[1],
        client[2],
        client[3]);
    out.println();
    out.println(
        "A rollout releases them through Azure's Maintenance API (no agent, no signed command),"
            + " each counted in its own zone:");
    List<String> rollout =
        new ArrayList<>(
            List.of(
                "fleet",
                "rollout",
                "--max-unavailable",
                "1",
                "--group-by",
                "zone",
                "--settle",
                "1s",
                "--reason",
                "demo: VMs without an agent",
                "--watch",
                "0"));
    rollout.addAll(events);
    rollout.addAll(List.of(client));
    if (console.cli(
            "fleet rollout <2 Reboot events> --max-unavailable 1 --group-by zone --settle 1s"
                + " --reason 'demo: VMs without an agent' --watch 0",
            rollout.toArray(String[]::new))
        != 0) {
      return 1;
    }
    // Azure started both once acknowledged and completed them; the rollout saw it.
    console.awaitCondition(
        "the rollout of the VMs without an agent",
        () ->
            fleet.views().rollouts().all().stream()
                .filter(r -> r.reason().equals("demo: VMs without an agent"))
                .anyMatch(
                    r ->
                        r.vms().size() == events.size()
                            && r.vms().values().stream()
                                .allMatch(
                                    v ->
                                        v.phase()
                                            == dev.sebridge.fleet.rollout.RolloutVm.Phase
                                                .COMPLETED)));
    out.println();
    out.println(
        "Azure started and completed both once acknowledged. No agent says a VM without one is"
            + " back: the rollout counts each down for 10 minutes after Azure said it completed.");
    console.cli("fleet rollouts", "fleet", "rollouts", client[0], client[1], client[2], client[3]);
    return 0;
  }
}
