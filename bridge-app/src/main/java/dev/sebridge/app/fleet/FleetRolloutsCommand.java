package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge fleet rollouts [ID] [--resume | --skip-vm VM | --skip-event E | --abort]}, or the
 * list by {@code --state}, {@code --event}, {@code --type}, {@code --source}, {@code --zone},
 * {@code --scale-set}, {@code --resource-group} and {@code --text}.
 */
@Command(
    name = "rollouts",
    mixinStandardHelpOptions = true,
    description =
        "Lists rollouts, shows one, or resumes, skips a VM or an event of, or aborts one.")
final class FleetRolloutsCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "A rollout.")
  String id;

  static final class Action {
    @Option(names = "--resume", description = "Resume a halted rollout.")
    boolean resume;

    @Option(names = "--skip-vm", paramLabel = "VMID", description = "Leave a VM out.")
    String skipVm;

    @Option(names = "--skip-event", paramLabel = "EVENTID", description = "Leave an event out.")
    String skipEvent;

    @Option(names = "--abort", description = "Stop approving.")
    boolean abort;
  }

  @ArgGroup(exclusive = true)
  Action action;

  @Option(names = "--reason", description = "Why (required with an action).")
  String reason;

  /** What the list asks for (the API's filters). */
  static final class Filters {
    @Option(
        names = "--state",
        description = "Only rollouts in this state (running, halted, completed, aborted).")
    String state;

    @Option(names = "--event", paramLabel = "EVENTID", description = "Only rollouts of this event.")
    String eventId;

    @Option(
        names = "--type",
        description =
            "Only rollouts of an event of this type (Freeze, Reboot, ...), while the views hold"
                + " the event.")
    String type;

    @Option(
        names = "--source",
        description = "Only rollouts of an event of this source (Platform or User), as --type.")
    String source;

    @Option(names = "--zone", description = "Only rollouts of a VM of this zone.")
    String zone;

    @Option(names = "--scale-set", description = "Only rollouts of a VM of this scale set.")
    String scaleSet;

    @Option(
        names = "--resource-group",
        description = "Only rollouts of a VM of this resource group.")
    String resourceGroup;

    @Option(names = "--text", description = "In the rollout's id, reason or who asked for it.")
    String text;

    String path() {
      java.util.StringJoiner q = new java.util.StringJoiner("&", "api/rollouts?", "");
      q.setEmptyValue("api/rollouts");
      FleetClient.query(
          q, "state", state == null ? null : state.toLowerCase(java.util.Locale.ROOT));
      FleetClient.query(q, "eventId", eventId);
      FleetClient.query(q, "type", type);
      FleetClient.query(q, "source", source);
      FleetClient.query(q, "zone", zone);
      FleetClient.query(q, "scaleSet", scaleSet);
      FleetClient.query(q, "resourceGroup", resourceGroup);
      FleetClient.query(q, "text", text);
      return q.toString();
    }
  }

  @Mixin Filters filters = new Filters();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    FleetClient client = options.client(System.getenv());
    PrintWriter out = spec.commandLine().getOut();
    try {
      if (action != null) {
        if (id == null || reason == null) {
          spec.commandLine()
              .getErr()
              .println("sebridge fleet rollouts: an action needs ID and --reason");
          return 2;
        }
        ObjectNode body = FleetClient.JSON.createObjectNode().put("reason", reason);
        String verb = action.resume ? "resume" : action.abort ? "abort" : "skip";
        if (action.skipVm != null) {
          body.put("vmId", action.skipVm);
        }
        if (action.skipEvent != null) {
          body.put("eventId", action.skipEvent);
        }
        if (action.resume) {
          // The halt it resumes, as read now: the service refuses the resume if the rollout is
          // halted otherwise by then, and a retry of it resumes nothing once it halted again.
          JsonNode halt = client.get("api/rollouts/" + FleetClient.segment(id)).path("halt");
          if (halt.isMissingNode() || halt.isNull()) {
            spec.commandLine()
                .getErr()
                .println("sebridge fleet rollouts: rollout " + id + " is not halted");
            return 1;
          }
          if (halt.hasNonNull("at")) { // (a halt recorded without its time: resumed as it is)
            body.put("halt", halt.path("at").asText());
          }
          out.printf(
              "rollout %s: resuming the halt of %s: %s%n",
              id, halt.path("at").asText(), halt.path("reason").asText());
        }
        client.post(
            "api/rollouts/" + FleetClient.segment(id) + "/" + verb,
            body,
            java.util.UUID.randomUUID().toString());
        out.printf("rollout %s: %s sent%n", id, verb);
      } else if (id != null) {
        JsonNode r = client.get("api/rollouts/" + FleetClient.segment(id));
        if (!options.printedJson(out, r)) {
          out.printf(
              "rollout %s: %s (%s) by %s: %s%n",
              id,
              r.path("state").asText(),
              counts(r),
              r.path("requestedBy").asText(),
              r.path("reason").asText());
          if (r.has("halt")) {
            out.println("halted: " + r.path("halt").path("reason").asText());
          }
          r.path("waves").forEach(w -> out.println("  " + wave(r, w)));
        }
      } else {
        // Every page (at most 100 rollouts a page), printed as one array as before.
        JsonNode all = client.getAll(filters.path(), "rollouts", 100).get("rollouts");
        if (!options.printedJson(out, all)) {
          Table t = new Table("ID", "STATE", "BY", "VMS", "WAVES", "REASON");
          all.forEach(
              r ->
                  t.row(
                      r.path("id").asText(),
                      r.path("state").asText(),
                      r.path("requestedBy").asText(),
                      counts(r),
                      Integer.toString(r.path("waves").size()),
                      r.path("reason").asText()));
          t.print(out);
        }
      }
    } catch (FleetClient.ApiError e) {
      spec.commandLine().getErr().println("sebridge fleet rollouts: " + e.getMessage());
      return 1;
    }
    out.flush();
    return 0;
  }

  /** {@code wave 2: web-4 (zone=1), api-2 (zone=3)}. */
  static String wave(JsonNode rollout, JsonNode wave) {
    // The rollout's entries are per VM and event (<vmId>|<eventId>); a wave lists vmIds.
    java.util.Map<String, JsonNode> byVm = new java.util.HashMap<>();
    rollout.path("vms").forEach(v -> byVm.putIfAbsent(v.path("vmId").asText(), v));
    List<String> vms = new ArrayList<>();
    wave.path("vmIds")
        .forEach(
            v -> {
              JsonNode vm =
                  byVm.getOrDefault(
                      v.asText(), com.fasterxml.jackson.databind.node.MissingNode.getInstance());
              vms.add(
                  vm.path("name").asText(v.asText()) + " (" + vm.path("group").asText("-") + ")");
            });
    return "wave "
        + wave.path("number").asInt()
        + " at "
        + wave.path("at").asText()
        + ": "
        + String.join(", ", vms);
  }

  /** {@code 4 back, 1 started, 1 pending}. */
  static String counts(JsonNode rollout) {
    java.util.Map<String, Integer> c = new java.util.TreeMap<>();
    rollout.path("vms").forEach(v -> c.merge(v.path("phase").asText(), 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    c.forEach((k, n) -> parts.add(n + " " + k));
    return parts.isEmpty() ? "no VMs yet" : String.join(", ", parts);
  }
}
