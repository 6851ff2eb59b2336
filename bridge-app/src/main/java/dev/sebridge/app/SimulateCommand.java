package dev.sebridge.app;

import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.Scenario;
import dev.sebridge.simulator.SimVm;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sebridge simulate}: the IMDS simulator, until Ctrl-C. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description =
        "Runs the IMDS Scheduled Events simulator on loopback until Ctrl-C. Its control API and"
            + " scenario format: docs/approvals.md, \"Testing a workflow against the simulator\".")
final class SimulateCommand implements Callable<Integer> {
  @Option(names = "--port", description = "Port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
  int port = 8169;

  @Option(
      names = "--scenario",
      paramLabel = "FILE",
      description = "Scenario to play (JSON or YAML).")
  Path scenario;

  @Option(names = "--demo", description = "Play the built-in demo scenario.")
  boolean demo;

  @Option(
      names = "--time-scale",
      description = "Simulated seconds per real second (default: the scenario's, else 1).")
  Double timeScale;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Scenario s =
        scenario != null ? Scenario.load(scenario) : demo ? Scenario.builtIn("demo") : null;
    double scale =
        timeScale != null ? timeScale : s != null && s.timeScale() != null ? s.timeScale() : 1.0;
    dev.sebridge.simulator.SimulatorBuilder b = ImdsSimulator.builder().port(port).timeScale(scale);
    if (s != null && !s.vms().isEmpty()) {
      b.vms(s.vms());
    }
    Signals.Termination termination = Signals.install(java.time.Duration.ofSeconds(5));
    try (ImdsSimulator sim = b.build().start()) {
      var out = spec.commandLine().getOut();
      out.println("IMDS simulator on " + sim.baseUri() + " (time scale " + scale + ")");
      for (SimVm vm : sim.vms()) {
        out.println(
            "  VM " + vm.name() + " (" + vm.vmId() + "): imds.endpoint=" + sim.baseUri(vm.name()));
      }
      out.println(
          "  control API: GET "
              + sim.baseUri()
              + "/control/state, POST /control/events, /control/faults, /control/scenario");
      out.flush();
      if (s != null) {
        Thread t = new Thread(() -> s.play(sim), "scenario");
        t.setDaemon(true);
        t.start();
      }
      termination.await();
    } finally {
      termination.stopped();
    }
    return 0;
  }
}
