package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge fleet approve EVENTID}: asks the fleet service to approve an event for some or
 * all of its Scheduled VMs, then shows each VM's result as its agent reports it.
 */
@Command(
    name = "approve",
    mixinStandardHelpOptions = true,
    description =
        "Approves an event through the fleet service (one signed command per VM) and shows the"
            + " agents' results.")
final class FleetApproveCommand implements Callable<Integer> {
  static final Duration POLL = Duration.ofMillis(500);

  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Parameters(index = "0", paramLabel = "EVENTID", description = "The event to approve.")
  String eventId;

  @Option(
      names = "--vm",
      paramLabel = "VMID",
      description =
          "Approve for this VM only (repeatable; default: every VM that has it Scheduled).")
  List<String> vms = new ArrayList<>();

  @Option(names = "--reason", required = true, description = "Why (recorded in every command).")
  String reason;

  @Option(
      names = "--override",
      description =
          "Approve even though an active rollout holds the event or a group would pass a"
              + " rollout's limit (audited; outside the rollouts' guarantee).")
  boolean override;

  @Option(
      names = "--wait",
      paramLabel = "SECONDS",
      description =
          "Wait this long for every VM's result (0 or less: do not wait; at most a day;"
              + " default ${DEFAULT-VALUE}).")
  long waitSeconds = 60;

  /** The longest --wait: a day (a command lives at most 10 minutes; results come within it). */
  static final long MAX_WAIT_SECONDS = 86_400;

  @Mixin IdempotencyKeyOption idempotency = new IdempotencyKeyOption();

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (waitSeconds > MAX_WAIT_SECONDS) {
      // Before anything is sent: a wait the command cannot keep is refused, not an approval made
      // and then a failure to wait for it (an overflow past 9.2e15 s).
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--wait: at most " + MAX_WAIT_SECONDS + " seconds (a day)");
    }
    FleetClient client = options.client(System.getenv());
    ObjectNode body = FleetClient.JSON.createObjectNode();
    if (!vms.isEmpty()) {
      var list = body.putArray("vms");
      vms.forEach(list::add);
    }
    body.put("reason", reason);
    if (override) {
      body.put("override", true);
    }
    PrintWriter out = spec.commandLine().getOut();
    JsonNode accepted;
    try {
      accepted =
          client.post(
              "api/events/" + FleetClient.segment(eventId) + "/approve", body, idempotency.key);
    } catch (java.io.IOException e) {
      spec.commandLine()
          .getErr()
          .println(FleetClient.failure("sebridge fleet approve", e, idempotency.key));
      return 1;
    }
    String requestId = accepted.path("requestId").asText();
    if (!options.json) {
      out.printf(
          "request %s by %s: %d command(s) for event %s%n",
          requestId,
          accepted.path("requestedBy").asText(),
          accepted.path("commands").size(),
          accepted.path("eventId").asText());
      out.flush();
    }
    JsonNode request = accepted;
    boolean complete = waitSeconds <= 0;
    String unanswered = "";
    if (waitSeconds > 0) {
      AtomicReference<JsonNode> read = new AtomicReference<>();
      try {
        request = awaitComplete(client, requestId, Duration.ofSeconds(waitSeconds), read::set);
        complete = true;
      } catch (TimeoutException e) {
        if (read.get() == null) { // not one answer of the request in time: nothing to show
          spec.commandLine()
              .getErr()
              .printf(
                  "sebridge fleet approve: request %s was made; not read within %ds%s:"
                      + " see GET /api/approvals/%s%n",
                  requestId, waitSeconds, FleetPoll.since(e), requestId);
          return 1;
        }
        request = read.get();
        unanswered = FleetPoll.since(e);
      } catch (IOException e) {
        spec.commandLine()
            .getErr()
            .printf(
                "sebridge fleet approve: request %s was made; waiting for its results failed: %s"
                    + " (see GET /api/approvals/%s)%n",
                requestId, e.getMessage(), requestId);
        return 1;
      }
    }
    if (options.printedJson(out, request)) {
      return complete ? 0 : 1;
    }
    if (waitSeconds > 0) {
      print(out, request, names(client));
      if (!complete) {
        out.println(
            "some VMs have not answered within "
                + waitSeconds
                + "s"
                + unanswered
                + ": see GET /api/approvals/"
                + requestId);
      }
    }
    out.flush();
    return complete ? 0 : 1;
  }

  /**
   * Reads the request until every VM has a result ({@link FleetPoll}: a 404 until the view has it,
   * a busy or restarting service, are read again), each answer handed to {@code read}.
   */
  static JsonNode awaitComplete(
      FleetClient client, String requestId, Duration timeout, Consumer<JsonNode> read)
      throws IOException, InterruptedException, TimeoutException {
    return new FleetPoll(client, "api/approvals/" + FleetClient.segment(requestId), POLL)
        .until(r -> r.path("complete").asBoolean(), read, timeout);
  }

  private Map<String, String> names(FleetClient client) {
    Map<String, String> names = new HashMap<>();
    try {
      for (JsonNode v : client.get("api/events/" + FleetClient.segment(eventId)).path("vms")) {
        names.put(v.path("vmId").asText(), v.path("name").asText("-"));
      }
    } catch (Exception e) {
      // names are a convenience: the table shows vmIds without them
    }
    return names;
  }

  static void print(PrintWriter out, JsonNode request, Map<String, String> names) {
    Table t = new Table("VM", "NAME", "COMMAND", "OUTCOME", "REASON CODE", "AT");
    request
        .path("vms")
        .fields()
        .forEachRemaining(
            f -> {
              JsonNode v = f.getValue();
              t.row(
                  f.getKey(),
                  names.getOrDefault(f.getKey(), "-"),
                  v.path("commandId").asText(),
                  v.path("outcome").asText("waiting"),
                  v.path("reasonCode").asText("-"),
                  v.path("resultAt").asText("-"));
            });
    t.print(out);
  }
}
