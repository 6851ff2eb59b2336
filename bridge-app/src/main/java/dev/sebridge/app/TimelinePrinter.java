package dev.sebridge.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** Prints envelopes as a readable timeline, or raw. */
final class TimelinePrinter {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());
  static final String FORMAT = "%-12s  %-10s  %-36s  %-10s  %-9s  %-8s  %s%n";

  private final PrintWriter out;
  private final boolean json;

  TimelinePrinter(PrintWriter out, boolean json) {
    this.out = out;
    this.json = json;
  }

  void header() {
    if (!json) {
      out.printf(
          FORMAT, "TIME", "VM", "EVENT ID", "TRANSITION", "TYPE", "SOURCE", "NOT BEFORE (UTC)");
      out.flush();
    }
  }

  synchronized void envelope(JsonNode e, String raw) {
    if (json) {
      out.println(raw);
    } else {
      String type = e.path("type").asText();
      JsonNode d = e.path("data");
      String time = TIME.format(Instant.parse(e.path("time").asText()));
      if (type.startsWith("dev.sebridge.scheduledevent.")) {
        JsonNode ev = d.path("event");
        out.printf(
            FORMAT,
            time,
            d.path("vm").path("name").asText(),
            ev.path("EventId").asText(),
            d.path("transition").asText() + (d.path("inferred").asBoolean() ? "*" : ""),
            ev.path("EventType").asText(),
            ev.path("EventSource").asText(),
            d.path("notBeforeUtc").isNull() ? "-" : d.path("notBeforeUtc").asText());
      } else if (type.equals("dev.sebridge.approval.result.v1")) {
        out.printf(
            "%-12s  %-10s  approval result: %s%s, IMDS %s, events %s, requested by %s%n",
            time,
            d.path("vm").path("name").asText(),
            d.path("outcome").asText(),
            d.path("reasonCode").asText().equals(d.path("outcome").asText())
                ? ""
                : " (" + d.path("reasonCode").asText() + ": " + d.path("reason").asText() + ")",
            d.path("imdsStatus").isNull() ? "-" : d.path("imdsStatus").asText(),
            d.path("eventIds"),
            d.path("requestedBy").asText("-"));
      } else if (type.equals("dev.sebridge.agent.heartbeat.v1")) {
        out.printf(
            "%-12s  %-10s  heartbeat: %d polls, %d failed%n",
            time,
            d.path("vm").path("name").asText(),
            d.path("polls").path("total").asLong(),
            d.path("polls").path("failures").properties().stream()
                .mapToLong(f -> f.getValue().asLong())
                .sum());
      }
    }
    out.flush();
  }

  synchronized void note(String text) {
    if (!json) {
      out.printf("%-12s  %s%n", TIME.format(Instant.now()), text);
      out.flush();
    }
  }
}
