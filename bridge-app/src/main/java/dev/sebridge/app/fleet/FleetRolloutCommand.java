package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge fleet rollout EVENTID... --max-unavailable 10% --group-by zone}: approves events
 * in waves through the fleet service, then prints each wave as it goes out, a halt and its reason,
 * and the end.
 */
@Command(
    name = "rollout",
    mixinStandardHelpOptions = true,
    description =
        "Approves events in waves: within each group at most --max-unavailable VMs between"
            + " approved and back. One approval releases an event for every VM it lists, so"
            + " the events are the units of the waves.")
final class FleetRolloutCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Parameters(
      arity = "0..*",
      paramLabel = "EVENTID",
      description = "The events to roll out (or --campaign).")
  List<String> eventIds = new ArrayList<>();

  @Option(
      names = "--campaign",
      paramLabel = "ID",
      description =
          "Roll out a maintenance campaign (sebridge fleet campaigns): its open events with a VM"
              + " Scheduled.")
  String campaign;

  @Option(
      names = "--max-unavailable",
      description =
          "Per group: a count (2) or a percentage (10%%); at least 1. Default ${DEFAULT-VALUE}.")
  String maxUnavailable = "1";

  @Option(
      names = "--group-by",
      split = ",",
      description =
          "scaleSet, zone, resourceGroup, location (default: the whole rollout is one group).")
  List<String> groupBy = new ArrayList<>();

  @Option(
      names = "--settle",
      description =
          "How long a VM must be back before it stops counting (default ${DEFAULT-VALUE}).")
  String settle = "2m";

  @Option(
      names = "--timeout",
      description =
          "How long a VM may take to be back before the rollout halts (default ${DEFAULT-VALUE}).")
  String timeout = "20m";

  @Option(
      names = "--report-grace",
      description =
          "How long an event may list VMs that have not reported it (held meanwhile) before the"
              + " rollout halts naming them (default ${DEFAULT-VALUE}).")
  String reportGrace = "2m";

  @Option(names = "--reason", required = true, description = "Why (recorded in every command).")
  String reason;

  @Option(
      names = "--watch",
      paramLabel = "SECONDS",
      description =
          "Print the waves until the rollout ends, at most this long (0: do not watch; at most"
              + " 30 days; default ${DEFAULT-VALUE}).")
  long watchSeconds = 3600;

  /** The longest --watch: 30 days (a rollout's waves and bake times may take days). */
  static final long MAX_WATCH_SECONDS = 30L * 86_400;

  @Mixin IdempotencyKeyOption idempotency = new IdempotencyKeyOption();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (watchSeconds > MAX_WATCH_SECONDS) {
      // Before the rollout is made, not a failure to watch it after (an overflow past 9.2e15 s).
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--watch: at most " + MAX_WATCH_SECONDS + " seconds (30 days)");
    }
    if ((campaign == null) == eventIds.isEmpty()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(),
          campaign == null
              ? "give the events to roll out, or --campaign"
              : "give the events to roll out or --campaign, not both");
    }
    FleetClient client = options.client(System.getenv());
    if (campaign != null) {
      JsonNode c;
      try {
        c = client.get("api/campaigns/" + FleetClient.segment(campaign));
      } catch (java.io.IOException e) {
        spec.commandLine()
            .getErr()
            .println(
                "sebridge fleet rollout: campaign "
                    + campaign
                    + ": "
                    + e.getMessage()
                    + " (sebridge fleet campaigns lists them)");
        return 1;
      }
      c.path("scheduledEventIds").forEach(e -> eventIds.add(e.asText()));
      spec.commandLine()
          .getOut()
          .printf(
              "campaign %s (%s, %s): %d event(s) with a VM scheduled: %s%n",
              campaign,
              c.path("eventType").asText("-"),
              c.path("description").asText("-"),
              eventIds.size(),
              String.join(" ", eventIds));
      if (eventIds.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "campaign " + campaign + " has no event with a VM Scheduled: nothing to roll out");
        return 1;
      }
    }
    ObjectNode body = FleetClient.JSON.createObjectNode();
    eventIds.forEach(body.putArray("eventIds")::add);
    body.put("maxUnavailable", maxUnavailable);
    groupBy.forEach(body.putArray("groupBy")::add);
    body.put("settle", settle);
    body.put("timeout", timeout);
    body.put("reportGrace", reportGrace);
    body.put("reason", reason);
    PrintWriter out = spec.commandLine().getOut();
    String id;
    try {
      id = client.post("api/rollouts", body, idempotency.key).path("rolloutId").asText();
    } catch (java.io.IOException e) {
      spec.commandLine()
          .getErr()
          .println(FleetClient.failure("sebridge fleet rollout", e, idempotency.key));
      return 1;
    }
    out.printf(
        "rollout %s: %d event(s), at most %s unavailable per %s%n",
        id,
        eventIds.size(),
        maxUnavailable,
        groupBy.isEmpty() ? "rollout" : String.join("+", groupBy));
    out.flush();
    if (watchSeconds <= 0) {
      return 0;
    }
    JsonNode end;
    try {
      end = watch(client, id, out, Duration.ofSeconds(watchSeconds));
    } catch (TimeoutException e) {
      out.printf(
          "still running after %ds%s: sebridge fleet rollouts %s%n",
          watchSeconds, FleetPoll.since(e), id);
      out.flush();
      return 1;
    } catch (IOException e) {
      out.flush();
      spec.commandLine()
          .getErr()
          .printf(
              "sebridge fleet rollout: rollout %s was made; watching it failed: %s"
                  + " (sebridge fleet rollouts %s)%n",
              id, e.getMessage(), id);
      return 1;
    }
    String state = end.path("state").asText();
    if (state.equals("halted")) {
      out.printf(
          "halted: %s%n  resume: sebridge fleet rollouts %s --resume --reason ...%n"
              + "  skip:   sebridge fleet rollouts %s --skip-vm VMID --reason ...%n",
          end.path("halt").path("reason").asText(), id, id);
    } else {
      out.printf("rollout %s %s: %s%n", id, state, FleetRolloutsCommand.counts(end));
    }
    out.flush();
    return state.equals("completed") ? 0 : 1;
  }

  /**
   * Prints each new wave until the rollout halts or ends ({@link FleetPoll}: a 404 until the view
   * has it, a busy or restarting service, are read again).
   */
  static JsonNode watch(FleetClient client, String id, PrintWriter out, Duration timeout)
      throws IOException, InterruptedException, TimeoutException {
    int[] printed = {0};
    return new FleetPoll(client, "api/rollouts/" + FleetClient.segment(id), Duration.ofMillis(500))
        .until(
            r -> !r.path("state").asText().equals("running"),
            r -> {
              JsonNode waves = r.path("waves");
              for (; printed[0] < waves.size(); printed[0]++) {
                out.println("  " + FleetRolloutsCommand.wave(r, waves.get(printed[0])));
              }
              out.flush();
            },
            timeout);
  }
}
