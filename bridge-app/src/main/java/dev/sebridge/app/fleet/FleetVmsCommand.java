package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sebridge fleet vms}: the VMs whose agents report, and which of them are silent. */
@Command(
    name = "vms",
    mixinStandardHelpOptions = true,
    description = "Lists the VMs whose agents report to the fleet service.")
final class FleetVmsCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Option(names = "--silent", description = "Only silent agents.")
  boolean silent;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    JsonNode body =
        options.client(System.getenv()).getAll(silent ? "api/vms?silent=true" : "api/vms", "vms");
    PrintWriter out = spec.commandLine().getOut();
    if (options.printedJson(out, body)) {
      return 0;
    }
    Table t =
        new Table("NAME", "VM ID", "ZONE", "SCALE SET", "AGENT", "LAST SEEN", "SILENT", "OPEN");
    for (JsonNode v : body.path("vms")) {
      t.row(
          v.path("name").asText("-"),
          v.path("vmId").asText(),
          v.path("zone").asText("-"),
          v.path("scaleSet").asText("-"),
          v.path("agentVersion").asText("-"),
          v.path("lastSeenAt").asText("-"),
          v.path("silent").asBoolean() ? "SILENT" : "no",
          v.path("openEvents").size());
    }
    if (t.isEmpty()) {
      out.println(silent ? "no silent agents" : "no agents have reported");
    } else {
      t.print(out);
    }
    out.flush();
    return 0;
  }
}
