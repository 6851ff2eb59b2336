package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge fleet approvals [REQUEST]}: the approval history (every request the views hold,
 * {@code fleet.history-retention}), narrowed as {@code GET /api/approvals} narrows it, the newest
 * first; or one request with each VM's result.
 */
@Command(
    name = "approvals",
    mixinStandardHelpOptions = true,
    description =
        "Lists the approval requests (who approved what, why, and each VM's result), the newest"
            + " first, or shows one.")
final class FleetApprovalsCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Parameters(index = "0", arity = "0..1", paramLabel = "REQUEST", description = "A request id.")
  String requestId;

  @Option(names = "--event", paramLabel = "EVENTID", description = "Only requests of this event.")
  String eventId;

  @Option(names = "--by", paramLabel = "WHO", description = "Only requests this principal made.")
  String requestedBy;

  @Option(
      names = "--state",
      paramLabel = "STATE",
      description = "refused (nothing sent), waiting (a VM has no result yet) or complete.")
  String state;

  @Option(names = "--vm", paramLabel = "VMID", description = "Only requests that name this VM.")
  String vmId;

  @Option(names = "--zone", description = "Only requests that name a VM of this zone.")
  String zone;

  @Option(names = "--scale-set", description = "Only requests that name a VM of this scale set.")
  String scaleSet;

  @Option(
      names = "--resource-group",
      description = "Only requests that name a VM of this resource group.")
  String resourceGroup;

  @Option(
      names = "--type",
      description =
          "Only requests for an event of this type (Freeze, Reboot, ...), while the"
              + " views hold the event.")
  String type;

  @Option(
      names = "--source",
      description = "Only requests for an event of this source (Platform or User), as --type.")
  String source;

  @Option(
      names = "--text",
      description = "In the event's id, the reason, who asked or the origin (rollout:ID, ...).")
  String text;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    FleetClient client = options.client(System.getenv());
    try {
      if (requestId != null
          && (eventId != null
              || requestedBy != null
              || state != null
              || vmId != null
              || zone != null
              || scaleSet != null
              || resourceGroup != null
              || type != null
              || source != null
              || text != null)) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "REQUEST shows one request: not with a filter");
      }
      if (requestId != null) {
        JsonNode r = client.get("api/approvals/" + FleetClient.segment(requestId));
        if (!options.printedJson(out, r)) {
          out.printf(
              "request %s: event %s, by %s at %s (%s): %s%n",
              requestId,
              r.path("request").path("eventId").asText(),
              r.path("request").path("requestedBy").asText(),
              r.path("request").path("requestedAt").asText("-"),
              r.path("request").path("origin").asText("-"),
              r.path("request").path("reason").asText());
          if (r.path("request").hasNonNull("refusal")) {
            out.println("refused: " + r.path("request").path("refusal").asText());
          }
          Table t = new Table("VM", "OUTCOME", "REASON", "AT");
          r.path("vms")
              .fields()
              .forEachRemaining(
                  v ->
                      t.row(
                          v.getKey(),
                          v.getValue().path("outcome").asText("waiting"),
                          v.getValue().path("reasonCode").asText("-"),
                          v.getValue().path("resultAt").asText("-")));
          if (!t.isEmpty()) {
            t.print(out);
          }
        }
        out.flush();
        return 0;
      }
      StringJoiner q = new StringJoiner("&", "api/approvals?", "");
      q.setEmptyValue("api/approvals");
      FleetClient.query(q, "eventId", eventId);
      FleetClient.query(q, "requestedBy", requestedBy);
      FleetClient.query(q, "state", state);
      FleetClient.query(q, "vmId", vmId);
      FleetClient.query(q, "zone", zone);
      FleetClient.query(q, "scaleSet", scaleSet);
      FleetClient.query(q, "resourceGroup", resourceGroup);
      FleetClient.query(q, "type", type);
      FleetClient.query(q, "source", source);
      FleetClient.query(q, "text", text);
      JsonNode body = client.getAll(q.toString(), "approvals");
      // The API lists by request id; the history reads the newest first.
      List<JsonNode> requests = new ArrayList<>();
      body.path("approvals").forEach(requests::add);
      requests.sort(
          Comparator.comparing(
                  (JsonNode r) -> at(r.path("request").path("requestedAt").asText("")),
                  Comparator.reverseOrder())
              .thenComparing(r -> r.path("request").path("requestId").asText()));
      if (options.printedJson(out, FleetClient.JSON.createArrayNode().addAll(requests))) {
        return 0;
      }
      Table t = new Table("REQUEST", "AT", "BY", "EVENT", "ORIGIN", "OUTCOMES", "REASON");
      for (JsonNode r : requests) {
        JsonNode req = r.path("request");
        t.row(
            req.path("requestId").asText(),
            req.path("requestedAt").asText("-"),
            req.path("requestedBy").asText("-"),
            req.path("eventId").asText("-"),
            req.path("origin").asText("-"),
            req.hasNonNull("refusal")
                ? "refused"
                : FleetEventsCommand.counts(r.path("outcomes")).replace(", ", " "),
            req.path("reason").asText(""));
      }
      if (t.isEmpty()) {
        out.println("no approval requests");
      } else {
        t.print(out);
      }
    } catch (FleetClient.ApiError e) {
      spec.commandLine().getErr().println("sebridge fleet approvals: " + e.getMessage());
      return 1;
    }
    out.flush();
    return 0;
  }

  /** A time as the API writes it ({@code Instant}), or the earliest for none or another text. */
  private static java.time.Instant at(String text) {
    try {
      return java.time.Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      return java.time.Instant.MIN;
    }
  }
}
