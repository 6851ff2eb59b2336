package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sebridge fleet events}: maintenance across the fleet, one line per event. */
@Command(
    name = "events",
    mixinStandardHelpOptions = true,
    description = "Lists maintenance events across the fleet, with each one's VMs by status.")
final class FleetEventsCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Option(names = "--open", description = "Only events some VM has not finished.")
  boolean open;

  @Option(names = "--type", description = "Only this event type (Reboot, Freeze, Redeploy...).")
  String type;

  @Option(names = "--zone", description = "Only the VMs of this availability zone.")
  String zone;

  @Option(names = "--scale-set", description = "Only the VMs of this scale set.")
  String scaleSet;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    StringJoiner q = new StringJoiner("&", "api/events?", "");
    q.setEmptyValue("api/events");
    if (open) {
      q.add("open=true");
    }
    if (type != null) {
      q.add("type=" + FleetClient.segment(type));
    }
    if (zone != null) {
      q.add("zone=" + FleetClient.segment(zone));
    }
    if (scaleSet != null) {
      q.add("scaleSet=" + FleetClient.segment(scaleSet));
    }
    JsonNode body = options.client(System.getenv()).getAll(q.toString(), "events");
    PrintWriter out = spec.commandLine().getOut();
    if (options.printedJson(out, body)) {
      return 0;
    }
    Table t = new Table("EVENT", "TYPE", "SOURCE", "NOT BEFORE", "IN", "VMS", "STATUS", "ZONES");
    // The API lists by EventId; the table shows the soonest first.
    List<JsonNode> events = new ArrayList<>();
    body.path("events").forEach(events::add);
    events.sort(
        Comparator.comparing(
                (JsonNode e) -> e.path("notBefore").asText("~"), Comparator.naturalOrder())
            .thenComparing(e -> e.path("eventId").asText()));
    for (JsonNode e : events) {
      t.row(
          e.path("eventId").asText(),
          e.path("eventType").asText("-"),
          e.path("eventSource").asText("-"),
          e.path("notBefore").isTextual() ? e.path("notBefore").asText() : "-",
          e.path("secondsToNotBefore").isNumber()
              ? human(Duration.ofSeconds(e.path("secondsToNotBefore").asLong()))
              : "-",
          vms(e),
          status(e),
          zones(e.path("zones")));
    }
    if (t.isEmpty()) {
      out.println(open ? "no open maintenance" : "no maintenance events");
    } else {
      t.print(out);
    }
    out.flush();
    return 0;
  }

  /** The VMs agents reported it for; or, for an event only Azure tells of, the VMs Azure lists. */
  static int vms(JsonNode e) {
    int reported = e.path("vmCount").asInt();
    return reported == 0 ? e.path("central").path("resources").size() : reported;
  }

  /** Its VMs' statuses; or, for an event only Azure tells of, Azure's ({@code azure completed}). */
  static String status(JsonNode e) {
    String central = e.path("central").path("status").asText("");
    return e.path("vmCount").asInt() == 0 && !central.isEmpty()
        ? "azure " + central.toLowerCase(java.util.Locale.ROOT)
        : counts(e.path("counts"));
  }

  static String counts(JsonNode counts) {
    StringJoiner j = new StringJoiner(", ");
    counts.fields().forEachRemaining(f -> j.add(f.getKey() + " " + f.getValue().asInt()));
    return j.length() == 0 ? "-" : j.toString();
  }

  /** {@code 1:4 2:4 3:4}: VMs by zone ({@code -}: no zone). */
  static String zones(JsonNode zones) {
    StringJoiner j = new StringJoiner(" ");
    zones.fields().forEachRemaining(f -> j.add(f.getKey() + ":" + f.getValue().asInt()));
    return j.length() == 0 ? "-" : j.toString();
  }

  static String human(Duration d) {
    if (d.isNegative()) {
      return "due";
    }
    long s = d.toSeconds();
    return s >= 3600
        ? (s / 3600) + "h" + (s % 3600 / 60) + "m"
        : s >= 60 ? (s / 60) + "m" + (s % 60) + "s" : s + "s";
  }
}
