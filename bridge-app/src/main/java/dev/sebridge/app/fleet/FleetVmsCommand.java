package dev.sebridge.app.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sebridge fleet vms}: the VMs whose agents report, which of them are silent or unknown to
 * Azure's inventory, and the inventory's coverage.
 */
@Command(
    name = "vms",
    mixinStandardHelpOptions = true,
    description = "Lists the VMs whose agents report to the fleet service.")
final class FleetVmsCommand implements Callable<Integer> {
  @Mixin FleetClientOptions options = new FleetClientOptions();

  @Option(names = "--silent", description = "Only silent agents.")
  boolean silent;

  @Option(
      names = "--unknown",
      description =
          "Only agents reporting a vmId Azure's inventory does not list (fleet.inventory.*).")
  boolean unknown;

  @Option(names = "--zone", description = "Only VMs of this availability zone.")
  String zone;

  @Option(names = "--scale-set", description = "Only VMs of this scale set.")
  String scaleSet;

  @Option(names = "--resource-group", description = "Only VMs of this resource group.")
  String resourceGroup;

  @Option(
      names = "--type",
      description = "Only VMs in an open event of this type (Reboot, Freeze, Redeploy...).")
  String type;

  @Option(names = "--source", description = "Only VMs in an open event of this source.")
  String source;

  @Option(
      names = "--status",
      description =
          "Only VMs whose part in an open event is in this status (scheduled, approved, started:"
              + " in maintenance now, ...).")
  String status;

  @Option(
      names = "--coverage",
      description =
          "How much of Azure's inventory the agents cover (live, silent, none, unknown), and the"
              + " inventory's VMs without an agent.")
  boolean coverage;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (coverage && path().contains("?")) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--coverage lists VMs without an agent: not with a filter");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (coverage) {
      return coverage(out);
    }
    String path = path();
    JsonNode body = options.client(System.getenv()).getAll(path, "vms");
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
      out.println(
          unknown
              ? "no unknown VMs"
              : silent
                  ? "no silent agents"
                  : path.contains("?") ? "no VMs match" : "no agents have reported");
    } else {
      t.print(out);
    }
    out.flush();
    return 0;
  }

  /** {@code api/vms} with the filters given. */
  private String path() {
    java.util.StringJoiner q = new java.util.StringJoiner("&", "api/vms?", "");
    q.setEmptyValue("api/vms");
    if (silent) {
      q.add("silent=true");
    }
    if (unknown) {
      q.add("inventory=unknown");
    }
    FleetClient.query(q, "zone", zone);
    FleetClient.query(q, "scaleSet", scaleSet);
    FleetClient.query(q, "resourceGroup", resourceGroup);
    FleetClient.query(q, "type", type);
    FleetClient.query(q, "source", source);
    FleetClient.query(q, "status", status);
    return q.toString();
  }

  private int coverage(PrintWriter out) throws Exception {
    FleetClient client = options.client(System.getenv());
    com.fasterxml.jackson.databind.node.ObjectNode c =
        (com.fasterxml.jackson.databind.node.ObjectNode) client.get("api/coverage");
    c.set("vms", client.getAll("api/coverage/without-agent", "vms").path("vms"));
    if (options.printedJson(out, c)) {
      return 0;
    }
    out.printf(
        "Azure's inventory: %d VMs; %d with a live agent, %d silent, %d without an agent%n",
        c.path("inventory").asInt(),
        c.path("live").asInt(),
        c.path("silent").asInt(),
        c.path("withoutAgent").asInt());
    out.printf(
        "unknown VMs (agents reporting a vmId the inventory does not list, counted in no group):"
            + " %d%n",
        c.path("unknown").asInt());
    out.printf("inventory read: %s%n", c.path("refreshedAt").asText("not yet"));
    Table t = new Table("NAME", "VM ID", "ZONE", "SCALE SET", "RESOURCE GROUP");
    for (JsonNode v : c.path("vms")) {
      t.row(
          v.path("name").asText("-"),
          v.path("vmId").asText(),
          v.path("zone").asText("-"),
          v.path("scaleSet").asText("-"),
          v.path("resourceGroup").asText("-"));
    }
    if (!t.isEmpty()) {
      out.println();
      out.println("Without an agent:");
      t.print(out);
    }
    out.flush();
    return 0;
  }
}
