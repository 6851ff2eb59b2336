package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge fleet campaigns}: maintenance campaigns (one-VM events of one type, source and
 * description, NotBefore close together), one row each; {@code fleet rollout --campaign ID} rolls
 * one out.
 */
@Command(
    name = "campaigns",
    mixinStandardHelpOptions = true,
    description =
        "Lists maintenance campaigns with an open event: Azure's host updates, one row each.")
final class FleetCampaignsCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Option(names = "--type", description = "Only this event type (Reboot, Freeze, Redeploy...).")
  String type;

  @Option(names = "--source", description = "Only this source (Platform or User).")
  String source;

  @Option(
      names = "--text",
      description = "Only campaigns whose description or id holds this (any case).")
  String text;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    StringJoiner q = new StringJoiner("&", "api/campaigns?", "");
    q.setEmptyValue("api/campaigns");
    if (type != null) {
      q.add("type=" + FleetClient.segment(type));
    }
    if (source != null) {
      q.add("source=" + FleetClient.segment(source));
    }
    if (text != null) {
      q.add("text=" + FleetClient.segment(text));
    }
    JsonNode body = options.client(System.getenv()).getAll(q.toString(), "campaigns");
    PrintWriter out = spec.commandLine().getOut();
    if (options.printedJson(out, body)) {
      return 0;
    }
    Table t =
        new Table(
            "CAMPAIGN",
            "TYPE",
            "SOURCE",
            "NEXT NOT BEFORE",
            "EVENTS",
            "OPEN",
            "VMS",
            "STATUS",
            "DESCRIPTION");
    for (JsonNode c : body.path("campaigns")) {
      t.row(
          c.path("campaignId").asText(),
          c.path("eventType").asText("-"),
          c.path("eventSource").asText("-"),
          c.path("nextNotBefore").isTextual() ? c.path("nextNotBefore").asText() : "-",
          c.path("events").asInt(),
          c.path("openEvents").asInt(),
          c.path("vmCount").asInt(),
          FleetEventsCommand.counts(c.path("counts")),
          c.path("description").asText("-"));
    }
    if (t.isEmpty()) {
      out.println("no open maintenance campaigns");
    } else {
      t.print(out);
    }
    out.flush();
    return 0;
  }
}
