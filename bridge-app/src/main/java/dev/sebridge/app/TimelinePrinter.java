package dev.sebridge.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sebridge.envelope.Envelope;
import dev.sebridge.sink.EventSink;
import java.io.PrintWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Prints envelopes as a readable timeline (or raw JSON), and keeps them for the summary. */
final class TimelinePrinter implements EventSink {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

  private final PrintWriter out;
  private final boolean json;
  private final List<Envelope> seen = new ArrayList<>();

  TimelinePrinter(PrintWriter out, boolean json) {
    this.out = out;
    this.json = json;
    if (!json) {
      out.printf(
          "%-12s  %-10s  %-36s  %-10s  %-9s  %-8s  %s%n",
          "TIME", "VM", "EVENT ID", "TRANSITION", "TYPE", "SOURCE", "NOT BEFORE (UTC)");
      out.flush();
    }
  }

  @Override
  public String name() {
    return "timeline";
  }

  @Override
  public synchronized CompletableFuture<Void> export(List<Envelope> batch) {
    for (Envelope e : batch) {
      seen.add(e);
      out.println(json ? e.bodyAsString() : line(e));
    }
    out.flush();
    return CompletableFuture.completedFuture(null);
  }

  static String line(Envelope e) {
    JsonNode d = e.json().path("data");
    JsonNode ev = d.path("event");
    String transition = d.path("transition").asText() + (d.path("inferred").asBoolean() ? "*" : "");
    return String.format(
        "%-12s  %-10s  %-36s  %-10s  %-9s  %-8s  %s",
        TIME.format(e.time()),
        d.path("vm").path("name").asText(),
        ev.path("EventId").asText(),
        transition,
        ev.path("EventType").asText(),
        ev.path("EventSource").asText(),
        d.path("notBeforeUtc").isNull() ? "-" : d.path("notBeforeUtc").asText());
  }

  synchronized List<Envelope> seen() {
    return List.copyOf(seen);
  }

  @Override
  public CompletableFuture<Void> flush() {
    out.flush();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    out.flush();
    return CompletableFuture.completedFuture(null);
  }
}
