package dev.sebridge.app;

import dev.sebridge.agent.Agent;
import dev.sebridge.config.Configuration;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.simulator.ImdsSimulator;
import dev.sebridge.simulator.Scenario;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge demo}: everything on this machine, no Azure. Starts the IMDS simulator with the
 * built-in scenario (a short Freeze, a user-initiated Reboot, a maintenance Azure cancels, a
 * hardware-failure Reboot), runs the agent against it with the file sink, prints the stream as a
 * timeline, and ends with a summary once every event has run its course.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Runs the simulator and the agent on this machine (no Azure) and prints the timeline.")
final class DemoCommand implements Callable<Integer> {
  /**
   * Scheduled, Started and Completed of the Freeze and both Reboots; Scheduled and Canceled of the
   * Redeploy, minus the hardware failure's missing Scheduled.
   */
  static final int EXPECTED_ENVELOPES = 10;

  @Option(names = "--json", description = "Print raw envelopes instead of the timeline.")
  boolean json;

  @Option(names = "--follow", description = "Keep running after the scenario, until Ctrl-C.")
  boolean follow;

  @Option(
      names = "--time-scale",
      description = "Simulated seconds per real second (default: ${DEFAULT-VALUE}).")
  double timeScale = 60;

  @Option(
      names = "--timeout",
      description = "Give up after this many seconds (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds = 180;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Scenario scenario = Scenario.builtIn("demo");
    Path work = Files.createTempDirectory("sebridge-demo-");
    try (ImdsSimulator sim =
        ImdsSimulator.builder().vms(scenario.vms()).timeScale(timeScale).build().start()) {
      String vm = scenario.vms().get(0).name();
      Configuration config =
          Configuration.of(
              Map.of(
                  "imds.endpoint",
                  sim.baseUri(vm).toString(),
                  "imds.poll-interval",
                  "250ms",
                  "state.dir",
                  work.resolve("state").toString(),
                  "sinks",
                  "file",
                  "sink.file.path",
                  work.resolve("envelopes.jsonl").toString(),
                  "http.port",
                  "0"));
      out.println(
          "sebridge demo: IMDS simulator on "
              + sim.baseUri(vm)
              + " (time scale "
              + timeScale
              + "), agent state in "
              + work);
      out.println("envelopes are also written to " + work.resolve("envelopes.jsonl"));
      out.println();
      TimelinePrinter timeline = new TimelinePrinter(out, json);
      long start = System.nanoTime();
      try (Agent agent = Agent.builder(config).extraSink(timeline).build().start()) {
        Thread player = new Thread(() -> scenario.play(sim), "demo-scenario");
        player.setDaemon(true);
        player.start();
        if (follow) {
          CountDownLatch stop = new CountDownLatch(1);
          Signals.onTermination(s -> stop.countDown());
          stop.await();
        } else {
          long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
          // Done when the scenario has played, every event has run its course, and the agent has
          // processed the final document.
          while (player.isAlive()
              || !sim.isIdle()
              || agent.committedIncarnation() != sim.documentIncarnation()) {
            if (System.nanoTime() > deadline) {
              out.println(
                  "demo: timed out after "
                      + timeoutSeconds
                      + "s with "
                      + timeline.seen().size()
                      + " envelopes");
              return 1;
            }
            Thread.sleep(100);
          }
        }
      }
      summary(out, timeline.seen(), Duration.ofNanos(System.nanoTime() - start));
      return 0;
    } finally {
      deleteQuietly(work);
    }
  }

  private static void summary(PrintWriter out, List<Envelope> seen, Duration took) {
    Map<String, Integer> byType = new TreeMap<>();
    for (Envelope e : seen) {
      byType.merge(e.type(), 1, Integer::sum);
    }
    out.println();
    out.printf("demo done in %.1fs: %d envelopes%n", took.toMillis() / 1000.0, seen.size());
    byType.forEach((t, n) -> out.printf("  %3d  %s%n", n, t));
    out.flush();
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temp dir left behind is harmless
    }
  }
}
